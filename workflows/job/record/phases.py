"""A job's phases as data: what each waits for, what may arrive in it, and what may follow it.

`CodingJob` moves through this table: `progress.set_phase` refuses a move the table does not
have, and the `hold` Update is answered only in a phase that answers it. The table is pure (no
Temporal call), so tests/workflows/test_job_phases.py holds it without a server. A new phase (a
review before the work lands, a paused budget, a pick among attempts) is one row: what it waits
for, what it hears and answers, what comes next, and which phases lead into it (`after`), so no
other row changes; the workflow's step that enters it is the other half.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.names import (
        JOB_ADMIT_SIGNAL,
        JOB_AGENT_INBOX_UPDATE,
        JOB_AGENT_WORKED_SIGNAL,
        JOB_ATTEMPT_NEWS_SIGNAL,
        JOB_ATTEMPT_VERDICT_SIGNAL,
        JOB_FINISH_UPDATE,
        JOB_HOLD_UPDATE,
        JOB_INTEGRATION_FINISHED_SIGNAL,
        JOB_MESSAGES_DELIVERED_SIGNAL,
        JOB_MODES_CHANGED_SIGNAL,
        JOB_PICK_UPDATE,
        JOB_REVIEW_UPDATE,
        JOB_SAY_UPDATE,
        JOB_STATE_QUERY,
        JOB_WITHDRAW_CALL_UPDATE,
    )
    from desk.payloads.jobs import JobPhase


@dataclass(frozen=True)
class Phase:
    """One row: a phase, what the job waits for in it, what arrives, and where it goes next.

    A signal cannot be refused (the server records it before the job sees it), so `hears` names
    the signals the phase waits on; a late one is taken in any phase, as its handler says. An
    Update can be: one the phase does not `answers` is refused with the phase in the answer.
    """

    name: str
    """A `JobPhase` value: what the job's status, its search attribute and the surfaces show."""
    waits_for: str
    """What the job waits for while in it, in a few words (the table reads as the job's life)."""
    hears: frozenset[str] = frozenset()
    """The signals it waits on (their names in desk/names.py)."""
    answers: frozenset[str] = frozenset()
    """The Updates it answers; in any other phase they are refused."""
    next: frozenset[str] = frozenset()
    """The phases the job may move to from it."""
    after: frozenset[str] = frozenset()
    """Phases that may lead into it besides those whose `next` names it: a phase added between
    two others says so here, and theirs stay as they are."""


class PhaseMoveError(RuntimeError):
    """A move the table does not have: a defect in the workflow's code, not the job's fault.

    Not a Temporal failure, so in a workflow it fails the workflow task, which Temporal tries
    again, and the job waits on it (no step runs twice) until a worker with the fix runs it.
    """


@dataclass(frozen=True)
class PhaseTable:
    """The phases a workflow moves through, one row each; read only."""

    rows: tuple[Phase, ...]
    first: frozenset[str]
    """Where the workflow starts."""
    everywhere: frozenset[str] = frozenset()
    """Messages every phase takes alike (a query of its state, the modes it follows)."""

    def row(self, name: str) -> Phase:
        """The row of phase `name`."""
        for phase in self.rows:
            if phase.name == name:
                return phase
        raise PhaseMoveError(f"No phase {name!r} in the table.")

    def follows(self, name: str) -> frozenset[str]:
        """The phases that may come after `name`: its row's `next`, and every row that names it
        in `after`."""
        joining = {phase.name for phase in self.rows if name in phase.after}
        return self.row(name).next | joining

    def may_move(self, before: str, after: str) -> bool:
        """Whether the table has the move from `before` to `after`."""
        return after in self.follows(before)

    def check_move(self, before: str, after: str) -> None:
        """Raise `PhaseMoveError` for a move the table does not have."""
        if not self.may_move(before, after):
            goes = ", ".join(f"'{name}'" for name in sorted(self.follows(before))) or "nowhere"
            raise PhaseMoveError(f"A job in '{before}' goes to {goes}, not to '{after}'.")

    def answers(self, name: str, update: str) -> bool:
        """Whether the Update `update` is answered in phase `name` (else it is refused)."""
        return update in self.row(name).answers or update in self.everywhere

    def messages(self) -> frozenset[str]:
        """Every message any phase waits on, answers or takes."""
        named = (phase.hears | phase.answers for phase in self.rows)
        return self.everywhere.union(*named)

    def with_row(self, phase: Phase) -> PhaseTable:
        """The table with `phase` added (or replacing the row of its name)."""
        kept = tuple(row for row in self.rows if row.name != phase.name)
        return replace(self, rows=(*kept, phase))

    def problems(self) -> list[str]:
        """What is wrong with the table: a name given twice, a move to a phase it does not
        have, a phase nothing reaches from the start, a phase from which no end is reached."""
        names = [phase.name for phase in self.rows]
        found = [f"{name!r} has two rows" for name in sorted(set(names)) if names.count(name) > 1]
        for phase in self.rows:
            for other in sorted((phase.next | phase.after) - set(names)):
                found.append(f"{phase.name!r} names {other!r}, which has no row")
        found += [f"the start {name!r} has no row" for name in sorted(self.first - set(names))]
        if found:
            return found
        ends = {phase.name for phase in self.rows if not self.follows(phase.name)}
        reached = self._reached(self.first, self.follows)
        found += [f"nothing reaches {name!r}" for name in names if name not in reached]
        before: dict[str, set[str]] = {name: set() for name in names}
        for name in names:
            for after in self.follows(name):
                before[after].add(name)
        ending = self._reached(ends, lambda name: frozenset(before[name]))
        found += [f"no end is reached from {name!r}" for name in names if name not in ending]
        return found

    @staticmethod
    def _reached(start: Iterable[str], step: Callable[[str], Iterable[str]]) -> set[str]:
        """Every phase reached from `start` by `step`s."""
        seen: set[str] = set()
        todo = list(start)
        while todo:
            name = todo.pop()
            if name not in seen:
                seen.add(name)
                todo.extend(step(name))
        return seen


def _names(*names: str) -> frozenset[str]:
    return frozenset(names)


JOB_PHASES = PhaseTable(
    first=_names(JobPhase.STARTING),
    everywhere=_names(JOB_STATE_QUERY, JOB_MODES_CHANGED_SIGNAL, JOB_WITHDRAW_CALL_UPDATE),
    rows=(
        Phase(
            JobPhase.STARTING,
            waits_for="its first workflow task: admitted at once, or queued",
            hears=_names(JOB_ADMIT_SIGNAL),
            answers=_names(JOB_SAY_UPDATE),
            next=_names(JobPhase.QUEUED, JobPhase.PREPARING),
        ),
        Phase(
            JobPhase.QUEUED,
            waits_for="a slot at its desk: the desk's `admit` (first, or after a suspension)",
            hears=_names(JOB_ADMIT_SIGNAL),
            answers=_names(JOB_SAY_UPDATE),
            next=_names(JobPhase.PREPARING, JobPhase.WORKING, JobPhase.CLEANING, JobPhase.DONE),
        ),
        Phase(
            JobPhase.PREPARING,
            waits_for="its worktree cut on the clone's host, and the repository's set-up",
            answers=_names(JOB_SAY_UPDATE),
            next=_names(JobPhase.WORKING, JobPhase.CLEANING, JobPhase.DONE),
        ),
        Phase(
            JobPhase.WORKING,
            waits_for=(
                "the agent's runs under the work clock (again while a message has not reached"
                " it), then the check"
            ),
            hears=_names(JOB_AGENT_WORKED_SIGNAL, JOB_MESSAGES_DELIVERED_SIGNAL),
            answers=_names(JOB_HOLD_UPDATE, JOB_SAY_UPDATE, JOB_AGENT_INBOX_UPDATE),
            next=_names(JobPhase.SUSPENDED, JobPhase.INTEGRATING, JobPhase.CLEANING),
        ),
        Phase(
            JobPhase.SUSPENDED,
            waits_for="a person's answer to the call the agent deferred: no process, no slot",
            answers=_names(JOB_SAY_UPDATE),
            next=_names(JobPhase.QUEUED, JobPhase.CLEANING),
        ),
        Phase(
            JobPhase.BUDGET_PAUSED,
            waits_for=(
                "a person's answer on the budget card (go on, finish here, stop): no process,"
                " no slot, the work clock still"
            ),
            answers=_names(JOB_SAY_UPDATE, JOB_FINISH_UPDATE),
            next=_names(JobPhase.QUEUED, JobPhase.INTEGRATING, JobPhase.REVIEW, JobPhase.CLEANING),
            after=_names(JobPhase.WORKING),
        ),
        Phase(
            JobPhase.ATTEMPTS,
            waits_for=(
                "a job of several attempts: each attempt's news (jobs of their own, with their"
                " own slots) until every one's work waits for the pick or it ended"
            ),
            hears=_names(JOB_ATTEMPT_NEWS_SIGNAL),
            next=_names(JobPhase.REVIEW, JobPhase.INTEGRATING, JobPhase.CLEANING, JobPhase.DONE),
            after=_names(JobPhase.STARTING, JobPhase.REVIEW),
        ),
        Phase(
            JobPhase.REVIEW,
            waits_for=(
                "a person's answer to the work (and its check): integrate, discard, or a"
                " message that asks for a revision; an attempt's job's pick (attempt_verdict);"
                " a job of attempts: the pick among them; no process, no slot, no deadline"
            ),
            hears=_names(JOB_ATTEMPT_VERDICT_SIGNAL, JOB_ATTEMPT_NEWS_SIGNAL),
            answers=_names(JOB_SAY_UPDATE, JOB_REVIEW_UPDATE, JOB_PICK_UPDATE),
            next=_names(JobPhase.QUEUED, JobPhase.INTEGRATING, JobPhase.CLEANING),
            after=_names(JobPhase.WORKING),
        ),
        Phase(
            JobPhase.INTEGRATING,
            waits_for=(
                "the repository's entity to integrate the branch, or withdraw it (a job of"
                " attempts: the picked attempt's end)"
            ),
            hears=_names(JOB_INTEGRATION_FINISHED_SIGNAL, JOB_ATTEMPT_NEWS_SIGNAL),
            next=_names(JobPhase.CLEANING, JobPhase.DONE),
        ),
        Phase(
            JobPhase.CLEANING,
            waits_for=(
                "the worktree released on its host, with what was kept (a job of attempts:"
                " its attempts' ends, and their kept branches removed)"
            ),
            hears=_names(JOB_ATTEMPT_NEWS_SIGNAL),
            next=_names(JobPhase.DONE),
        ),
        Phase(JobPhase.DONE, waits_for="nothing: the report is out"),
    ),
)
"""`CodingJob`'s phases. Every Update and signal the job declares is named here (the test holds
the table to the workflow's definition)."""
