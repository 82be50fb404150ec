"""A reviewer's answer to a job waiting in review (`codedesk integrate`, `codedesk discard`,
the review card's buttons), as the job answers it.

The job refuses in the `review` Update's validator (a sender who may not, a job not in review,
an answer that came second). A revision is a message: `say` (message_client.py).
"""

from __future__ import annotations

from temporalio.client import Client

from desk.errors import ReviewError
from desk.payloads.conversation.review_payloads import ReviewAnswer, ReviewAnswered
from surfaces.clients.conversation.job_updates import JobEnded, update_job
from workflows.job.coding_job import CodingJob


async def answer_review(
    client: Client, task_queue: str, number: int, answer: ReviewAnswer
) -> ReviewAnswered:
    """Send job `number` the reviewer's `answer`; the job's answer, or the desk error it
    refused with."""
    answered = await update_job(
        client,
        task_queue,
        number,
        lambda handle: handle.execute_update(CodingJob.review, answer),
        "did not take the answer",
    )
    if isinstance(answered, JobEnded):
        raise ReviewError(
            f"Job {number} has ended: there is no review to answer. `codedesk show {number}` "
            "shows how it ended."
        )
    return answered
