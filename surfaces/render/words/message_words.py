"""A job's conversation in words: what became of a message, the report's list, history lines."""

from __future__ import annotations

from desk.config.basics.dates import shown_date
from desk.payloads.message_payloads import (
    JobMessage,
    MessageDelivery,
    MessagesDelivered,
    MessageSeam,
    SayAnswer,
    SayInput,
)
from surfaces.render.blocks import Block, field, item, ours, text

PREVIEW_CHARS = 200
"""Characters of a message's first line a list or a history line shows."""

SEAMS = {
    MessageSeam.STDIN: "on its input, read at its next step",
    MessageSeam.FILE: "in its messages file",
    MessageSeam.RESUME: "resuming its session",
    MessageSeam.START_OVER: "in a new run with the task",
    MessageSeam.PROMPT: "in its first prompt",
}
"""How a message reached (or reaches) the agent, in a few words."""

LATER = {
    MessageSeam.RESUME: "its session is resumed with it",
    MessageSeam.START_OVER: "it runs again with the task and the message",
    MessageSeam.PROMPT: "its first prompt has it",
    MessageSeam.STDIN: "it reads it on its input",
    MessageSeam.FILE: "it finds it in its messages file",
}


def say_answer(answer: SayAnswer) -> str:
    """What became of a message, for the person who sent it."""
    if answer.continues:
        return continued_words(answer)
    said = f"message {answer.seq} to job {answer.number}"
    later = f" ({LATER[answer.seam]})" if answer.seam in LATER else ""
    if answer.delivery == MessageDelivery.DELIVERED:
        how = f" ({SEAMS[answer.seam]})" if answer.seam in SEAMS else ""
        return f"{said}: delivered to the running agent{how}."
    if answer.delivery == MessageDelivery.SHORTLY:
        return f"{said}: queued: the running agent gets it as soon as it reads its messages."
    if answer.delivery == MessageDelivery.TURN_END:
        return f"{said}: queued: delivered when the agent's turn ends{later}."
    if answer.delivery == MessageDelivery.AGENT_START:
        return f"{said}: queued: delivered when the agent starts{later}."
    return f"{said}: queued: delivered when the agent runs again (it is suspended or between runs)."


def continued_words(answer: SayAnswer) -> str:
    """A message to a finished job: the new job that continues it, and with what session."""
    earlier, number = answer.continues, answer.number
    if answer.continued_anew:
        how = (
            f"job {earlier}'s agent session is not kept, so its agent starts a new session "
            f"with job {earlier}'s task and your message"
        )
    else:
        how = f"its agent resumes job {earlier}'s session with your message"
    return f"job {earlier} has ended: job {number} continues it ({how})."


def preview(message_text: str) -> str:
    """A message's first line, cut for a list or a history line."""
    first = message_text.strip().split("\n", 1)[0]
    more = len(message_text.strip()) > len(first)
    cut = first[:PREVIEW_CHARS]
    return cut + ("…" if more or len(first) > PREVIEW_CHARS else "")


def delivered_words(message: JobMessage) -> str:
    """When and how the message reached the agent, or that it did not."""
    reached = message.delivered
    if reached is None:
        return "not delivered"
    attempt = f", attempt {reached.attempt}" if reached.attempt > 1 else ""
    return f"delivered at run {reached.run}{attempt}, {SEAMS.get(reached.seam, reached.seam)}"


def message_blocks(messages: list[JobMessage], omitted: int = 0, zone: str = "") -> list[Block]:
    """A report's messages: who sent each, when, and when and how it reached the agent."""
    if not messages:
        return []
    blocks = [field(f"messages ({len(messages) + omitted})")]
    for message in messages:
        who = message.by.name or message.by.id
        where = f" ({message.surface})" if message.surface else ""
        blocks.append(
            item(
                ours(f"{message.seq} from {who}{where} at {shown_date(message.at, zone)}: "),
                text(preview(message.text)),
                ours(f" ({delivered_words(message)})"),
            )
        )
    if omitted:
        blocks.append(item(ours(f"… and {omitted} more")))
    return blocks


def said_line(said: SayInput) -> str:
    """A history line: a person sent the agent a message."""
    who = said.by.name or said.by.id
    where = f" ({said.surface})" if said.surface else ""
    return f"message from {who}{where}: {preview(said.text)}"


def delivered_line(told: MessagesDelivered) -> str:
    """A history line: messages reached the agent."""
    numbers = ", ".join(str(seq) for seq in told.seqs)
    attempt = f", attempt {told.attempt}" if told.attempt > 1 else ""
    noun = "message" if len(told.seqs) == 1 else "messages"
    how = SEAMS.get(told.seam, told.seam)
    if not told.taken:
        return f"{noun} {numbers} handed to the running agent (run {told.run}{attempt}, {how})"
    return f"{noun} {numbers} reached the agent (run {told.run}{attempt}, {how})"
