"""What a job's thread says of a person's message to its agent: a reaction, or a short reply.

A message the job took gets a reaction: delivered to the running agent, or queued until the
agent reads it. One it refused gets a cross and a reply saying why and what to do instead, in
Discord's words (`/job`, `/task`) rather than the CLI's. Someone who may not talk to the job
is told once, mentioned so they see it.
"""

from __future__ import annotations

from desk.errors import (
    AgentDoneError,
    DeskError,
    JobNotFoundError,
    MessageSenderError,
    MessageTooLongError,
)
from desk.payloads.message_payloads import MessageDelivery, SayAnswer
from surfaces.render.discord.message_text import plain

DELIVERED = "✅"
"""The running agent has the message."""
QUEUED = "📨"
"""The job kept the message; the agent gets it when it next reads (its turn ends, it starts,
it resumes)."""
REFUSED = "❌"
"""The job did not take the message; a reply says why."""


def answer_reaction(answer: SayAnswer) -> str:
    """The reaction that says what became of a message the job took."""
    return DELIVERED if answer.delivery == MessageDelivery.DELIVERED else QUEUED


def continued_text(answer: SayAnswer) -> str:
    """The reply to a message in a finished job's place: the new job that continues it here."""
    earlier = answer.continues
    if answer.continued_anew:
        how = (
            f"job {earlier}'s agent session is not kept, so its agent starts a new session "
            f"with job {earlier}'s task and your message"
        )
    else:
        how = f"its agent resumes job {earlier}'s session with your message"
    return f"Job {earlier} has ended: job {answer.number} continues it here ({how})."


def refusal_text(refused: DeskError, number: int) -> str:
    """The reply to a message the job refused: why, and what to do instead."""
    if isinstance(refused, AgentDoneError | JobNotFoundError):
        return (
            f"Job {number}'s agent has finished its work: a message cannot reach it now. "
            f"`/job {number}` shows what it did; once its report is out, a message here "
            "continues it in a new job."
        )
    if isinstance(refused, MessageTooLongError):
        return f"Not passed on: {plain(str(refused))}"
    if isinstance(refused, MessageSenderError):
        return (
            f"Not passed on: only the person who asked for job {number} and codedesk's owners "
            "may talk to its agent."
        )
    return f"Not passed on to job {number}'s agent: {plain(str(refused))} Send it again later."


def stranger_notice(mention: str, number: int) -> str:
    """The one notice to someone who may not talk to the job: their messages go nowhere."""
    return (
        f"{mention} only the person who asked for job {number} and codedesk's owners may talk "
        "to its agent: your messages in this thread are not passed on (this is said once)."
    )


def unreachable_text(number: int) -> str:
    """The reply when the desk could not be asked at all (its server did not answer)."""
    return (
        f"Not passed on: the desk did not answer, so job {number}'s agent did not get this. "
        "Send it again in a moment."
    )
