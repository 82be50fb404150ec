"""The job's work clock: how much of its work-time budget the agent has used, and how much is left.

Pure: it is told times and events (the agent's step started or stopped running on the clock, a
hold channel's `agent_worked`, whether long-running mode is followed now) and answers; it never
reads a clock or calls Temporal itself, so it is tested without a server (tests/
test_work_clock_unit.py) and the workflow decides when to look at it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from desk.policy.modes import long_running_allowance

MAX_WORKED = timedelta(hours=1)
"""The most one `agent_worked` signal may charge (a bound on a confused or hostile sender)."""

NO_TIME = timedelta(0)


@dataclass
class WorkClock:
    """The budget counts only the agent's own working time.

    The clock runs while the agent works (`start` .. `stop`); it stands still while a hold waits
    for a person, and the time the agent kept working beside a waiting hold, which the hold
    channel signals, is charged when the clock is next looked at (`left`). Long-running mode
    lets the clock go past the budget one check interval at a time, never past the ceiling.
    """

    budget: timedelta
    ceiling: timedelta
    """`long_running_max`: the most long-running mode ever allows."""
    check: timedelta
    """`long_running_check`: how far past the budget one look allows in long-running mode."""
    worked: timedelta = NO_TIME
    """The work counted so far in the agent step's current run."""
    beside_holds: timedelta = NO_TIME
    """Work signalled beside waiting holds and not yet counted."""
    allowed: timedelta = field(default=NO_TIME)
    """The work the clock allowed when it was last looked at."""
    extended_by: timedelta = NO_TIME
    """Work past the budget that long-running mode allowed."""
    running_since: datetime | None = None

    def __post_init__(self) -> None:
        if not self.allowed:
            self.allowed = self.budget

    @property
    def limit(self) -> timedelta:
        """The longest the clock could ever allow: the agent activity's own limit."""
        return max(self.budget, self.ceiling)

    def charge_beside_holds(self, seconds: float) -> None:
        """The agent worked `seconds` beside a waiting hold: that time counts (bounded)."""
        if 0 < seconds < MAX_WORKED.total_seconds():
            self.beside_holds += timedelta(seconds=seconds)

    def restart(self) -> None:
        """The agent's step starts again (its host was gone, so it never ran): count anew."""
        self.worked = NO_TIME
        self.running_since = None

    def start(self, now: datetime) -> None:
        """The agent works and no hold waits: the clock runs from `now`."""
        self.running_since = now

    def stop(self, now: datetime) -> None:
        """The clock stands still from `now` (a hold waits, the agent ended, the budget ran out)."""
        if self.running_since is not None:
            self.worked += now - self.running_since
            self.running_since = None

    def left(self, long_running: bool) -> timedelta:
        """Count the work signalled beside holds, and answer how much work is left (<= 0: none).

        Recomputes the allowance for `long_running` (the mode followed now) and records the
        extension: the work done past the budget under an allowance long-running mode gave. A
        clock that overran the budget by a timer's lateness with the mode off was not extended;
        the interval a job finishes after the mode was switched off was.
        """
        self.worked += self.beside_holds
        self.beside_holds = NO_TIME
        if self.worked > self.budget and self.allowed > self.budget:
            extension = min(self.worked, self.allowed) - self.budget
            self.extended_by = max(self.extended_by, extension)
        self.allowed = long_running_allowance(
            self.worked, self.budget, self.ceiling, self.check, long_running
        )
        return self.allowed - self.worked

    @property
    def extended_to_ceiling(self) -> bool:
        """Whether long-running mode's extension reached its ceiling."""
        return bool(self.extended_by) and self.budget + self.extended_by >= self.ceiling
