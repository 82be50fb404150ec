"""Who may talk to a job and what a message may be: the rules a running job's `say` and a
finished job's continuation share, with the words of their refusals."""

from __future__ import annotations

from desk.errors import MessageError, MessageSenderError, MessageTooLongError
from desk.holds.approvals import Principal
from desk.payloads.jobs import JobInput


def sender_refusal(job: JobInput, by: Principal, what: str) -> MessageSenderError | None:
    """`by` may `what` (talk to the job's agent, continue it) only as the job's starter or one
    of the host's owners; None when they may."""
    if by.id == job.starter or by.id in job.owners:
        return None
    return MessageSenderError(
        f"{by.name or by.id} may not {what}: only whoever started the job and the host's owners "
        "(CODEDESK_OWNERS, CODEDESK_DISCORD_OWNER_IDS) may."
    )


def text_refusal(text: str, limit: int) -> MessageError | None:
    """Why `text` is no message for an agent (empty, or over the host's `limit`), or None."""
    if not text.strip():
        return MessageError("The message is empty: say what the agent should hear.")
    if len(text) > limit:
        return MessageTooLongError(
            f"The message is {len(text):,} characters, longer than the host's limit of "
            f"{limit:,} (CODEDESK_MESSAGE_CHARS): say it in fewer words, or in several messages."
        )
    return None
