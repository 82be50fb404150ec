"""`codedesk finish N` (`DeskClient.finish`): a person ends a job's agent at its budget card.

The job refuses in the `finish` Update's validator (a job not waiting at a budget card, someone
who may not answer it); a job that has ended refuses nothing, and this says so.
"""

from __future__ import annotations

from temporalio.client import Client

from desk.errors import BudgetPauseError
from desk.holds.budget_cards import FinishAnswer, FinishInput
from surfaces.clients.conversation.job_updates import JobEnded, update_job
from workflows.job.coding_job import CodingJob


async def finish(client: Client, task_queue: str, number: int, ask: FinishInput) -> FinishAnswer:
    """Finish job `number` at its budget card as `ask.by`; the job's answer, or its refusal."""
    answered = await update_job(
        client,
        task_queue,
        number,
        lambda handle: handle.execute_update(CodingJob.finish, ask),
        "did not finish",
    )
    if isinstance(answered, JobEnded):
        raise BudgetPauseError(
            f"Job {number} has ended ({answered.status}): it waits at no budget card. "
            f"`codedesk show {number}` shows what it did."
        )
    return answered
