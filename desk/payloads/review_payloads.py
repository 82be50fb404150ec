"""A job's review (issue 46): a person's answer to the work waiting in phase `review`, and the
rounds the review went through, as the job's status and report carry them."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from desk.holds.approvals import Principal
from desk.records.base import Payload, ScrubbedText
from desk.records.repo_setup import CheckStatus


class ReviewVerdict(StrEnum):
    """What a reviewer answered."""

    INTEGRATE = "integrate"
    """Rebase and fast-forward the work into the clone, as a job without review does."""
    REVISE = "revise"
    """The agent resumes its session with the reviewer's feedback (a `say` in review)."""
    DISCARD = "discard"
    """Remove the job's branch and worktree; the clone stays as it was."""


class ReviewAnswer(Payload):
    """A reviewer's `integrate` or `discard` (a revision is a message: `say`)."""

    verdict: ReviewVerdict
    by: Principal
    """Who answers: the job's starter or one of the host's owners."""
    surface: str = ""
    """Where it was answered from (`cli`, `discord`)."""


class ReviewAnswered(Payload):
    """The job took the answer: it integrates, or discards, now."""

    number: int
    verdict: ReviewVerdict


class ReviewRound(Payload):
    """One round of review: the work the agent handed in (its check), and what became of it."""

    round: int
    check: CheckStatus | None = None
    """The check's end on the work of this round (None: the repository has no check)."""
    verdict: ReviewVerdict | None = None
    """The answer (None while the round waits)."""
    by: str = ""
    """Who answered, by name (or id)."""
    feedback: ScrubbedText = ""
    """A revision's words for the agent (cut to the host's `report_held_chars` in a report)."""
    waited_from: datetime | None = None
    answered_at: datetime | None = None
