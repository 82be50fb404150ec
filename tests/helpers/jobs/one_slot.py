"""A desk of one slot whose integrations last until the test lets go (`one_slot`): a fixture of
tests/jobs, brought in by its conftest.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.worker import Worker

from desk.config.settings import DeskSettings
from desk.names import host_task_queue
from surfaces.clients.desk_client import DeskClient
from tests.helpers.jobs.desk_queue import REPO
from tests.helpers.stand_ins.held_integrate import LET_GO, hold_integrations, holding_integrations
from workers.desk_handle import configure_desk
from workers.worker import WORKFLOWS
from workers.workflow_runner import WORKFLOW_RUNNER


@pytest.fixture
async def one_slot(
    client: Client, settings: DeskSettings, origin: Path
) -> AsyncIterator[DeskClient]:
    """A desk of one slot whose integrations last until LET_GO is set."""
    hold_integrations()
    one = settings.model_copy(update={"max_workers": 1})
    held = holding_integrations(client, one)
    host_queue = host_task_queue(one.task_queue, one.host)
    async with (
        Worker(
            client,
            task_queue=one.task_queue,
            workflows=list(WORKFLOWS),
            workflow_runner=WORKFLOW_RUNNER,
            activities=held,
        ),
        Worker(client, task_queue=host_queue, activities=held),
    ):
        await configure_desk(client, one)
        desk = DeskClient(client, one)
        await desk.add_repo(REPO, str(origin))
        try:
            yield desk
        finally:
            LET_GO.set()
