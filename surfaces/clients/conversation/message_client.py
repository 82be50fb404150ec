"""A person's message to a job's agent (`codedesk say`, `DeskClient.say`), as the job answers it.

The job refuses in the `say` Update's validator (a sender who may not, a text too long, an
agent whose work is over); a job that has ended refuses nothing, and this says what to do
instead.
"""

from __future__ import annotations

from temporalio.client import Client

from desk.errors import AgentDoneError, MessageError
from desk.holds.approvals import Principal
from desk.payloads.message_payloads import SayAnswer, SayInput
from surfaces.clients.conversation.job_updates import JobEnded, update_job
from workflows.job.coding_job import CodingJob


async def say(
    client: Client, task_queue: str, number: int, said: SayInput, update_id: str | None = None
) -> SayAnswer:
    """Send job `number`'s agent `said`; the job's answer, or the desk error it refused with.

    `update_id` names the message once for all its sends (a Discord message's id): the server
    answers a second send of it with the first one's answer, and keeps one message."""
    if not said.text.strip():
        raise MessageError("The message is empty: say what the agent should hear.")
    answered = await update_job(
        client,
        task_queue,
        number,
        lambda handle: handle.execute_update(CodingJob.say, said, id=update_id),
        "did not take the message",
    )
    if isinstance(answered, JobEnded):
        raise AgentDoneError(
            f"Job {number} has ended ({answered.status}): a message cannot reach its agent now. "
            f"`codedesk show {number}` shows what it did; for more work, start a new job with "
            "`codedesk task`."
        )
    return answered


def cli_sender(owner: str) -> Principal:
    """Who the CLI speaks as: its owner id (`local:alice`), named by its user."""
    return Principal(id=owner, name=owner.removeprefix("local:"))
