"""A job's budget pause: its agent reached the work budget or the spend limit, and a person is
asked whether it goes on, finishes here or stops (issue 47).

The workflow carries these as data; a surface words them (the budget card, the report's
pauses). Plain models and enums only: no I/O.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum

from pydantic import Field

from desk.records.base import Payload, ScrubbedText
from desk.usage.tally import Usage

GO_ON_MESSAGE = (
    "You were paused: your work budget or spend limit ran out, and you may go on with a new one."
    " Go on with the task from where you were; look at the worktree first, as what you last did"
    " may not have completed."
)
"""The note a person's "go on" leaves in the job's conversation: the agent's resumed session
reads it (after the conversation's own words for messages that came after a run)."""


class BudgetReason(StrEnum):
    """Which of the job's budgets its agent reached."""

    TIME = "time"
    """The work budget (`--timeout`, CODEDESK_WORK_BUDGET)."""
    MONEY = "money"
    """The spend limit (`--spend-limit`, CODEDESK_JOB_SPEND_LIMIT, the desk's day)."""


class BudgetAnswer(StrEnum):
    """What a person answered a budget card."""

    GO_ON = "go_on"
    """Approved: the agent resumes its session with another budget of the same size."""
    FINISH = "finish"
    """`codedesk finish`: no more agent; the check, then the integration of what is committed."""
    STOP = "stop"
    """Declined (or withdrawn, or the job cancelled): the job ends as its budget ended it."""


class BudgetCommit(Payload):
    """One commit the job's branch has at the pause."""

    sha: str
    subject: ScrubbedText = ""


class BranchSoFar(Payload):
    """What the job's branch holds at a budget pause."""

    commits: list[BudgetCommit] = Field(default_factory=list)
    commits_omitted: int = 0
    diffstat: ScrubbedText = ""
    uncommitted: int = 0


class BudgetCard(Payload):
    """What a budget card shows: what the job has done so far, what it asked for, and what
    each answer gives."""

    job: int
    repo: str
    task: ScrubbedText = ""
    """What the job asked for."""
    reason: BudgetReason
    pause: int = 1
    """Which pause of the job this is (1 for its first)."""
    asks_max: int = 0
    """How many pauses the host allows one job (CODEDESK_BUDGET_ASKS_MAX)."""
    worked: timedelta = timedelta(0)
    """The agent's work time so far (time cards waited is not in it)."""
    budget: timedelta = timedelta(0)
    """The work budget it reached (or had, at a spend pause)."""
    spent: Usage | None = None
    """What the agent spent so far, in all its runs."""
    spend_limit: Decimal | None = None
    """The spend limit it reached (or had, at a time pause)."""
    more_time: timedelta | None = None
    """What "go on" adds to the work budget (None: no time is added)."""
    more_money: Decimal | None = None
    """What "go on" adds to the spend limit in US dollars (None: no money is added)."""
    time_left: timedelta | None = None
    """Work time the host allows past this "go on" (CODEDESK_WORK_BUDGET_MAX and the
    long-running ceiling); None: at a spend pause, unchanged."""
    money_left: Decimal | None = None
    """Spend the host allows past this "go on" (its spend limit); None: no host limit."""
    commits: list[BudgetCommit] = Field(default_factory=list)
    commits_omitted: int = 0
    diffstat: ScrubbedText = ""
    """`git diff --shortstat` of the branch against its base, committed work only."""
    uncommitted: int = 0
    """Paths with changes the agent has not committed (not integrated by "finish here")."""


class BudgetPause(Payload):
    """One pause of a job at its budget, for its status and report."""

    at: datetime
    reason: BudgetReason
    answer: BudgetAnswer | None = None
    """None while the card waits."""
    by: str = ""
    """Who answered (empty: the job was cancelled or its card withdrawn)."""
    answered_at: datetime | None = None
    approval_id: str = ""
    more_time: timedelta | None = None
    more_money: Decimal | None = None


class FinishInput(Payload):
    """`codedesk finish N`: a person ends the job's paused agent here."""

    by: str
    """The principal id of who finishes."""
    by_name: str = ""


class FinishAnswer(Payload):
    """Whether `finish` counted: only a job waiting at a budget card takes it."""

    counted: bool
    job: int
    reason: ScrubbedText = ""
