"""What workflows ask a surface (Discord, a fake in tests) to show: cards and job threads.

A surface hosts these as activities on its own task queue, so a card requested while the
surface is down is shown when it comes back. Payloads are data; the surface renders them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from desk.holds.approvals import ApprovalOutcome, ApprovalRequest, HeldCall, SurfacePlace
from desk.payloads.jobs import JobReport
from desk.payloads.ship_payloads import PushResult
from desk.policy.modes import JobModes
from desk.records.base import Payload, ScrubbedText
from desk.records.narration import Narration


class CardRef(Payload):
    """A posted card, kept in the approval's workflow so it can be closed after a restart."""

    channel: str
    message: str


class PostCard(Payload):
    approval_id: str
    request: ApprovalRequest
    channel: str


class CloseCard(Payload):
    approval_id: str
    card: CardRef
    request: ApprovalRequest
    outcome: ApprovalOutcome


class ThreadText(Payload):
    """Text for a job's thread: a long message of its own (split under the surface's limit).

    A job tells its thread of a modes switch as data (`job`, `modes`, `following`), which the
    surface words (`surfaces.render.words.narration_words.thread_text`); `text` is anything
    already in words, and what jobs of earlier versions sent for a switch too.
    """

    kind: Literal["text"] = "text"

    channel: str
    text: ScrubbedText = ""
    job: int = 0
    modes: JobModes | None = None
    """The modes the job's scopes now say, when this tells of a switch."""
    following: list[str] = Field(default_factory=list)
    """Which of them the job follows (`JobStatus.following`)."""
    yolo_approved: HeldCall | None = None
    """A held call yolo mode approved without a card, when this announces one."""
    push_result: PushResult | None = None
    """How the push the job's agent asked for ended (its `Ship`'s result), when this tells it."""


class ThreadProgress(Payload):
    """Short narration: replaces the text of the thread's one progress message.

    The job sends what happens (`narration`, with the branch or host it names); the surface
    words it (`surfaces.render.words.narration_words`). `text` is what jobs of earlier versions sent
    instead, still read from outboxes that hold one.
    """

    kind: Literal["progress"] = "progress"

    channel: str
    text: ScrubbedText = ""
    narration: Narration | None = None
    branch: str = ""
    host: str = ""
    held: ScrubbedText = ""
    """The held call a suspended job waits for (`Narration.SUSPENDED`)."""
    agent_of: str = ""
    """The workflow id of a job whose agent works (or is about to): the surface may show the
    agent's latest lines under the narration, read from Temporal. Empty: none."""
    job: int = 0
    """The job narrating (0: sent by a job of an earlier version): a surface shows a job
    waiting for review its review card (`Narration.REVIEW`)."""


class ThreadReport(Payload):
    """The job's final report; after it is posted the thread is archived."""

    kind: Literal["report"] = "report"

    channel: str
    report: JobReport
    requester: str = ""
    """Who asked for the job (`discord:<user id>`): where the report goes, in their own direct
    messages, when the channel refuses it. Empty in a report of an earlier version."""


class ThreadCard(Payload):
    """Show an approval's card in the outbox's channel, after what was written before it."""

    kind: Literal["card"] = "card"

    approval_id: str
    request: ApprovalRequest


class CardSettled(Payload):
    """The approval settled: close its card, or never post it if it is still waiting."""

    kind: Literal["settled"] = "settled"

    approval_id: str
    request: ApprovalRequest
    outcome: ApprovalOutcome


OutboxItem = Annotated[
    ThreadText | ThreadProgress | ThreadReport | ThreadCard | CardSettled,
    Field(discriminator="kind"),
]


class OutboxState(Payload):
    """The `Outbox` workflow's state, carried across continue-as-new."""

    place: SurfacePlace
    items: list[OutboxItem] = Field(default_factory=list)
    cards: dict[str, CardRef] = Field(default_factory=dict)
    """Posted cards still open, by approval id."""
    reported: bool = False
    awaiting: bool = False
    """Started for an item still to come (its signal follows the start): the outbox does not end
    before that item has come, though its thread's report is out and nothing else is queued."""
