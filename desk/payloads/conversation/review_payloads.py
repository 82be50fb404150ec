"""A job's review (issue 46): a person's answer to the work waiting in phase `review`, and the
rounds the review went through, as the job's status and report carry them."""

from __future__ import annotations

from datetime import datetime, timedelta
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


class JobDiffInput(Payload):
    """`codedesk diff N`: the job's commits against the clone's HEAD, asked of the clone's host."""

    number: int
    repo: str
    branch: str
    host: str = ""
    host_wait: timedelta = timedelta(seconds=10)
    stat_only: bool = False
    max_chars: int = 1_000_000
    """The most of the diff sent back; the rest is cut (and counted)."""


class JobDiff(Payload):
    """What the job's branch changes against the clone's HEAD: a stat, and the diff itself."""

    head: str
    """The clone's HEAD the diff was taken against."""
    stat: ScrubbedText = ""
    diff: ScrubbedText = ""
    diff_cut: int = 0
    """Characters of the diff left out (over `max_chars`)."""
