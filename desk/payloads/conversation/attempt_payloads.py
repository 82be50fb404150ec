"""Several attempts at one task (issue 48): agents side by side, each in its own worktree, and
a person's pick among them.

A job asked for attempts (`task --agents claude,codex` or `--attempts K`) runs none itself: the
desk numbers it and each attempt, an ordinary job of its own (its slot, budget, holds, check)
that waits for the pick instead of integrating. The job hears each attempt's news, shows the
comparison, and passes the pick on: the picked attempt integrates, the others are removed.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum

from pydantic import Field

from desk.holds.approvals import Principal
from desk.names import ATTEMPT_LABELS
from desk.records.base import Payload, ScrubbedText
from desk.records.job_states import JobOutcome
from desk.records.repo_setup import CheckStatus
from desk.usage.tally import Usage


class AttemptSpec(Payload):
    """One attempt as the job was asked for it: its label, agent, and the job that runs it."""

    label: str
    agent_command: str
    agent: str = ""
    """The preset's name (`claude`, `codex`, ...), or empty for a command given whole."""
    number: int = 0
    """The attempt's own job number, given by the desk (0 until it is admitted)."""


def attempt_specs(commands: list[tuple[str, str]]) -> list[AttemptSpec]:
    """The attempts of a job, labelled in order: each a (preset name or "", command) pair."""
    if len(commands) > len(ATTEMPT_LABELS):
        raise ValueError(f"At most {len(ATTEMPT_LABELS)} attempts have a label.")
    return [
        AttemptSpec(label=label, agent=agent, agent_command=command)
        for label, (agent, command) in zip(ATTEMPT_LABELS, commands, strict=False)
    ]


class AttemptState(StrEnum):
    """Where an attempt is, as its job last told the job it belongs to."""

    WORKING = "working"
    """Its agent works (or it waits for a slot, an approval, its check)."""
    READY = "ready"
    """Its work and check wait for the pick: no process, no slot."""
    ENDED = "ended"
    """It ended without waiting for the pick (failed, ran out of budget, was cancelled), or
    after it: its report is in."""


class AttemptFacts(Payload):
    """What an attempt's job last told of its work."""

    check: CheckStatus | None = None
    """The check's end on the work waiting for the pick (None: no check ran)."""
    check_blocks: bool = False
    """The owner's check blocks integration and did not pass."""
    stat: ScrubbedText = ""
    """The size of its change against where it was cut (`1 file changed, 1 insertion(+)`)."""
    commits: list[ScrubbedText] = Field(default_factory=list)
    """Its commits' subjects, oldest first (at most the host's `report_commits`)."""
    worked: timedelta = timedelta(0)
    usage: Usage | None = None
    """What its agent spent so far (its cost: None when not known)."""
    final_words: ScrubbedText = ""
    """The end of what its agent printed last."""
    outcome: JobOutcome | None = None
    """Its report's outcome, once it ended."""
    branch: str = ""
    branch_kept: bool = False
    worktree: str = ""
    base: str = ""
    head: str = ""
    """The clone's HEAD once its work integrated."""


class AttemptNews(AttemptFacts):
    """An attempt's job tells the job it belongs to where it is now (a signal)."""

    label: str
    state: AttemptState


class AttemptRow(AttemptSpec, AttemptFacts):
    """One row of the comparison: the attempt and its last news."""

    state: AttemptState = AttemptState.WORKING

    def passed(self) -> bool:
        """Whether its work waits for the pick with a check that ran and passed."""
        return self.state == AttemptState.READY and self.check == CheckStatus.PASSED


class PickInput(Payload):
    """A person's pick among the attempts (`codedesk pick N b`); an empty label discards all."""

    label: str
    by: Principal
    surface: str = ""


class PickAnswer(Payload):
    """The job took the pick: the picked attempt integrates, the others are removed."""

    number: int
    label: str
    attempt: int = 0
    """The picked attempt's job number (0: every attempt discarded)."""


class Attempts(Payload):
    """The job's attempts, their rows in order, and the pick once made."""

    rows: list[AttemptRow] = Field(default_factory=list)
    picked: str = ""
    """The picked attempt's label (empty: none yet, or all discarded)."""
    picked_by: str = ""
    pick_first_passing: bool = False

    def picked_row(self) -> AttemptRow | None:
        """The picked attempt's row (None: no pick, or every attempt discarded)."""
        return next((row for row in self.rows if self.picked and row.label == self.picked), None)
