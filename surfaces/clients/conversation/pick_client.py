"""A person's pick among a job's attempts (`codedesk pick N b`, the comparison's buttons), as
the job answers it; the job refuses in the `pick` Update's validator (a sender who may not, a
comparison not open, an attempt not ready, a pick that came second)."""

from __future__ import annotations

from temporalio.client import Client

from desk.errors import PickError
from desk.payloads.conversation.attempt_payloads import PickAnswer, PickInput
from surfaces.clients.conversation.job_updates import JobEnded, update_job
from workflows.job.coding_job import CodingJob


async def pick_attempt(client: Client, task_queue: str, number: int, pick: PickInput) -> PickAnswer:
    """Send job `number` the `pick`; the job's answer, or the desk error it refused with."""
    answered = await update_job(
        client,
        task_queue,
        number,
        lambda handle: handle.execute_update(CodingJob.pick, pick),
        "did not take the pick",
    )
    if isinstance(answered, JobEnded):
        raise PickError(
            f"Job {number} has ended: there is no pick to make. `codedesk show {number}` shows "
            "how it ended."
        )
    return answered
