"""A reviewer's answer to a job waiting in review (`codedesk integrate`, `codedesk discard`,
the review card's buttons), as the job answers it.

The job refuses in the `review` Update's validator (a sender who may not, a job not in review,
an answer that came second), so a refusal comes back as the desk error it is. A revision is a
message: `say` (message_client.py).
"""

from __future__ import annotations

from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from desk.errors import DeskError, JobNotFoundError, ReviewError
from desk.failures import error_of
from desk.names import job_workflow_id
from desk.payloads.conversation.review_payloads import ReviewAnswer, ReviewAnswered
from surfaces.clients.listings.worker_check import require_worker
from workflows.job.coding_job import CodingJob
from workflows.reasons import reason_of


async def answer_review(
    client: Client, task_queue: str, number: int, answer: ReviewAnswer
) -> ReviewAnswered:
    """Send job `number` the reviewer's `answer`; the job's answer, or the desk error it
    refused with."""
    await require_worker(client, task_queue)
    handle = client.get_workflow_handle_for(CodingJob.run, job_workflow_id(number))
    try:
        return await handle.execute_update(CodingJob.review, answer)
    except WorkflowUpdateFailedError as error:
        refused = error_of(error)
        if refused is not None:
            raise refused from None
        raise DeskError(f"Job {number} did not take the answer: {reason_of(error.cause)}") from None
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
    try:
        await client.get_workflow_handle(job_workflow_id(number)).describe()
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
        raise JobNotFoundError(
            f"There is no job {number}: `codedesk jobs` lists the jobs."
        ) from None
    raise ReviewError(
        f"Job {number} has ended: there is no review to answer. `codedesk show {number}` shows "
        "how it ended."
    )
