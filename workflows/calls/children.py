"""Entities started from a workflow: the child is started once and used by everyone after."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.workflow import ChildWorkflowCancellationType, ParentClosePolicy

from workflows import patches


async def start_entity(
    workflow_type: str, arg: object, *, id: str, memo: dict[str, str] | None = None
) -> None:
    """Start the entity workflow `id` (of `workflow_type`) as an abandoned child, unless it runs
    already.

    Abandoned, so it outlives the workflow that started it; already running is the usual case,
    and then the caller talks to the running one by its id. It is abandoned to a cancel too: a
    job cancelled while it starts its thread's outbox or its repository's entity must not
    cancel them, which would lose what they hold for every other workflow that uses them.
    """
    cancellation = (
        ChildWorkflowCancellationType.ABANDON
        if workflow.patched(patches.ENTITIES_OUTLIVE_CANCEL)
        else ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED
    )
    try:
        await workflow.start_child_workflow(
            workflow_type,
            arg,
            id=id,
            parent_close_policy=ParentClosePolicy.ABANDON,
            cancellation_type=cancellation,
            memo=memo,
        )
    except WorkflowAlreadyStartedError:
        pass
