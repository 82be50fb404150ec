"""What workflows ask a surface (Discord, a fake in tests) to show: cards and job threads.

A surface hosts these as activities on its own task queue, so a card requested while the
surface is down is shown when it comes back. Payloads are data; the surface renders them.
"""

from __future__ import annotations

from pydantic import Field

from desk.approvals import ApprovalOutcome, ApprovalRequest, SurfacePlace
from desk.models import JobReport
from desk.payload import Payload


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
    """Text for a job's thread: a long message of its own (split under the surface's limit)."""

    channel: str
    text: str


class ThreadProgress(Payload):
    """Short narration: replaces the text of the thread's one progress message."""

    channel: str
    text: str


class ThreadReport(Payload):
    """The job's final report; after it is posted the thread is archived."""

    channel: str
    report: JobReport


class ThreadCard(Payload):
    """Ask a job's thread to show an approval's card after what was written before it."""

    approval_workflow_id: str
    request: ApprovalRequest


class CardShown(Payload):
    card: CardRef


class ThreadState(Payload):
    """The `JobThread` workflow's state."""

    place: SurfacePlace
    number: int
    pending: list[ThreadText | ThreadProgress | ThreadReport | ThreadCard] = Field(
        default_factory=list
    )
    done: bool = False
