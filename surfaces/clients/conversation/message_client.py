"""A person's message to a job's agent (`codedesk say`, `DeskClient.say`), as the job answers it.

The job refuses in the `say` Update's validator, so a refusal leaves nothing in its history
and comes back as the desk error it is (a sender who may not, a text too long, an agent whose
work is over). A job that has ended refuses nothing: the server says it has completed, and this
says what to do instead.
"""

from __future__ import annotations

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from desk.errors import AgentDoneError, DeskError, JobNotFoundError, MessageError
from desk.failures import error_of
from desk.holds.approvals import Principal
from desk.names import job_workflow_id
from desk.payloads.message_payloads import SayAnswer, SayInput
from surfaces.clients.listings.worker_check import require_worker
from workflows.job.coding_job import CodingJob
from workflows.reasons import reason_of


async def say(
    client: Client, task_queue: str, number: int, said: SayInput, update_id: str | None = None
) -> SayAnswer:
    """Send job `number`'s agent `said`; the job's answer, or the desk error it refused with.

    `update_id` names the message once for all its sends (a Discord message's id): the server
    answers a second send of it with the first one's answer, and keeps one message."""
    if not said.text.strip():
        raise MessageError("The message is empty: say what the agent should hear.")
    await require_worker(client, task_queue)
    handle = client.get_workflow_handle_for(CodingJob.run, job_workflow_id(number))
    try:
        return await handle.execute_update(CodingJob.say, said, id=update_id)
    except WorkflowUpdateFailedError as error:
        refused = error_of(error)
        if refused is not None:
            raise refused from None
        reason = reason_of(error.cause)
        raise DeskError(f"Job {number} did not take the message: {reason}") from None
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
    raise await _gone(client, number)


async def _gone(client: Client, number: int) -> DeskError:
    """Why job `number` took no message: there is none, or it has ended."""
    try:
        described = await client.get_workflow_handle(job_workflow_id(number)).describe()
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
        return JobNotFoundError(f"There is no job {number}: `codedesk jobs` lists the jobs.")
    status = (described.status or WorkflowExecutionStatus.COMPLETED).name.lower()
    return AgentDoneError(
        f"Job {number} has ended ({status}): a message cannot reach its agent now. "
        f"`codedesk show {number}` shows what it did; for more work, start a new job with "
        "`codedesk task`."
    )


def cli_sender(owner: str) -> Principal:
    """Who the CLI speaks as: its owner id (`local:alice`), named by its user."""
    return Principal(id=owner, name=owner.removeprefix("local:"))
