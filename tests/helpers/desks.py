"""The desk as a worker configures it: its limits and its host policy."""

from __future__ import annotations

from temporalio.client import Client, WorkflowUpdateRPCTimeoutOrCancelledError

from desk.config.settings import DeskSettings
from surfaces.clients.desk_client import DeskClient
from tests.helpers.waiting import until
from workers.desk_handle import configure_desk


async def configured(client: Client, settings: DeskSettings) -> None:
    """`configure_desk`, asked again while the server is too busy to answer in time (seen on
    a machine loaded ten times over its cores); the update is idempotent."""

    async def attempt() -> bool:
        try:
            await configure_desk(client, settings)
        except WorkflowUpdateRPCTimeoutOrCancelledError:
            return False
        return True

    await until(attempt, "the desk to take this worker's limits")


async def host_policy(desk: DeskClient, **changes: object) -> DeskSettings:
    """Tell the desk a host policy with `changes`, as a worker started with them would: the
    desk judges every later job by it (a requester's own settings are never asked)."""
    config = desk.settings.model_copy(update=changes)
    await configured(desk.client, config)
    return config
