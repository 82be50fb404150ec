"""Reaching the `Desk` entity: started on first use, configured by each worker that starts."""

from __future__ import annotations

from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy

from desk.models import DeskState
from desk.names import DESK_WORKFLOW_ID
from desk.settings import DeskSettings
from workflows.desk import Desk


def desk_start(settings: DeskSettings) -> WithStartWorkflowOperation[Desk, None]:
    """Start the desk if it does not run yet; use the running one otherwise."""
    return WithStartWorkflowOperation(
        Desk.run,
        DeskState(limits=settings.desk_limits),
        id=DESK_WORKFLOW_ID,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        task_queue=settings.task_queue,
    )


async def configure_desk(client: Client, settings: DeskSettings) -> DeskState:
    """Tell the desk this host's limits; a changed max_workers takes effect from now."""
    return await client.execute_update_with_start_workflow(
        Desk.configure, settings.desk_limits, start_workflow_operation=desk_start(settings)
    )
