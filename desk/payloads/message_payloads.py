"""A job's conversation: the messages people send its agent, and how each reached it.

A message is the `say` Update on the job, kept in the job's state with its sender and a number
(`seq`, from 1) before it is answered. The agent's run takes the messages through its CLI's own
seam (`MessageSeam`) and tells the job which reached it (`MessagesDelivered`); the job keeps
when and how (`Delivered`), and its report lists them. Surfaces word all of it.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import Field

from desk.holds.approvals import Principal
from desk.records.base import Payload, ScrubbedText


class MessageSeam(StrEnum):
    """How a message reaches the agent."""

    STDIN = "stdin"
    """Claude Code's streaming input, while it runs: the model reads it at its next step."""
    FILE = "file"
    """A command agent's messages file (`CODEDESK_MESSAGES`), appended while it runs."""
    RESUME = "resume"
    """The agent's own session resumed with the messages as its prompt, after its run ended."""
    START_OVER = "start_over"
    """A new run in the same worktree, given the task and the messages (a CLI that resumes
    nothing, or whose session is gone)."""
    PROMPT = "prompt"
    """In the prompt of the agent's first run: the messages came before it started."""


class MessageDelivery(StrEnum):
    """What became of a message as the job took it (a `say` answer)."""

    DELIVERED = "delivered"
    """The running agent's live seam took it at once."""
    SHORTLY = "shortly"
    """The agent runs with a live seam, but is not reading just now (it is starting, or its
    worker is coming back): it gets it as soon as it reads."""
    TURN_END = "turn_end"
    """The agent's CLI takes no input while it runs: it gets it when its run ends."""
    AGENT_START = "agent_start"
    """The agent has not started yet: its first run gets it."""
    RESUME = "resume"
    """The agent is suspended (or between two runs): it gets it when it runs again."""


class SayInput(Payload):
    """A person's message to a job's agent."""

    text: ScrubbedText
    by: Principal
    """Who sends it: the job's requester (its starter) or one of the host's owners."""
    surface: str = ""
    """Where it was sent from (`cli`, `discord`)."""


class SayAnswer(Payload):
    """The job took the message: its number in the conversation and what became of it."""

    number: int
    seq: int
    delivery: MessageDelivery
    seam: MessageSeam | None = None
    """How it reaches the agent (None: the job cannot tell yet)."""
    continues: int = 0
    """The finished job the message went to: `number` is the new job that continues it, and
    the message its first (0: the message went to job `number` itself)."""
    continued_anew: bool = False
    """The finished job's session was gone: the new job's agent starts a new session."""


class Delivered(Payload):
    """When and how a message reached the agent."""

    run: int
    """Which of the job's agent runs took it (1 for the first; a suspension's resume, or a run
    for messages that came as the agent ended, counts one more)."""
    attempt: int = 1
    """The attempt of that run (more than 1 after a worker crash)."""
    at: datetime
    seam: MessageSeam


class JobMessage(Payload):
    """One message of the job's conversation, as the job keeps it and its report lists it."""

    seq: int
    text: ScrubbedText
    text_cut: int = 0
    """Characters a report left out of `text` (the job keeps it whole)."""
    by: Principal
    surface: str = ""
    at: datetime
    delivered: Delivered | None = None
    """None while (or if) it has not reached the agent."""


class InboxAsk(Payload):
    """A running agent's step asks its job for the messages after `after_seq`."""

    run: int
    after_seq: int = 0
    attempt: int = 1


class Inbox(Payload):
    """The messages the agent has not had yet, or `over` once its run is over."""

    messages: list[JobMessage] = Field(default_factory=list)
    over: bool = False


class MessagesDelivered(Payload):
    """The agent's step: these messages reached the agent (`seqs`), in this run and attempt."""

    seqs: list[int]
    run: int
    attempt: int = 1
    seam: MessageSeam
    taken: bool = True
    """They are in the agent's conversation; False: its live seam has them (written on Claude
    Code's input, which takes them at the model's next step), which the `say` answer waits for."""
