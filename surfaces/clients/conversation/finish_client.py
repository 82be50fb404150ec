"""`codedesk finish N` (`DeskClient.finish`): a person ends a job's agent at its budget card.

The job refuses in the `finish` Update's validator (a job not waiting at a budget card, someone
who may not answer it), so a refusal leaves nothing in its history and comes back as the desk
error it is; a job that has ended refuses nothing, and this says so.
"""

from __future__ import annotations

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from desk.errors import BudgetPauseError, DeskError, JobNotFoundError
from desk.failures import error_of
from desk.holds.budget_cards import FinishAnswer, FinishInput
from desk.names import job_workflow_id
from surfaces.clients.listings.worker_check import require_worker
from workflows.job.coding_job import CodingJob
from workflows.reasons import reason_of


async def finish(client: Client, task_queue: str, number: int, ask: FinishInput) -> FinishAnswer:
    """Finish job `number` at its budget card as `ask.by`; the job's answer, or its refusal."""
    await require_worker(client, task_queue)
    handle = client.get_workflow_handle_for(CodingJob.run, job_workflow_id(number))
    try:
        return await handle.execute_update(CodingJob.finish, ask)
    except WorkflowUpdateFailedError as error:
        refused = error_of(error)
        if refused is not None:
            raise refused from None
        raise DeskError(f"Job {number} did not finish: {reason_of(error.cause)}") from None
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
    try:
        described = await client.get_workflow_handle(job_workflow_id(number)).describe()
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
        raise JobNotFoundError(
            f"There is no job {number}: `codedesk jobs` lists the jobs."
        ) from None
    status = (described.status or WorkflowExecutionStatus.COMPLETED).name.lower()
    raise BudgetPauseError(
        f"Job {number} has ended ({status}): it waits at no budget card. `codedesk show "
        f"{number}` shows what it did."
    )
