"""Reaching the `Desk` entity: started on first use, configured by each worker that starts."""

from __future__ import annotations

from temporalio.client import Client, WithStartWorkflowOperation, WorkflowUpdateFailedError
from temporalio.common import WorkflowIDConflictPolicy

from desk.config.settings import DeskSettings
from desk.errors import HostError
from desk.failures import error_of
from desk.names import DESK_WORKFLOW_ID
from desk.payloads.jobs import DeskState
from workflows.desk.desk_entity import Desk


def desk_start(settings: DeskSettings) -> WithStartWorkflowOperation[Desk, None]:
    """Start the desk if it does not run yet; use the running one otherwise.

    A desk started this way takes no policy from the starter: only a worker's `configure`
    gives it one, and until then it admits no job.
    """
    return WithStartWorkflowOperation(
        Desk.run,
        DeskState(limits=settings.desk_limits.model_copy(update={"policy": None})),
        id=DESK_WORKFLOW_ID,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        task_queue=settings.task_queue,
    )


async def configure_desk(
    client: Client, settings: DeskSettings, *, others_polling: bool = False
) -> DeskState:
    """Tell the desk this host's limits; a changed max_workers takes effect from now.

    `others_polling` says another worker of this host name polled before this one started:
    the desk then refuses this worker if it keeps the host's clones on another shelf.
    """
    limits = settings.desk_limits.model_copy(update={"others_polling": others_polling})
    try:
        return await client.execute_update_with_start_workflow(
            Desk.configure, limits, start_workflow_operation=desk_start(settings)
        )
    except WorkflowUpdateFailedError as error:
        if isinstance(refused := error_of(error), HostError):
            raise refused from None
        raise
