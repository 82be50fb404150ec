"""The desk's daily spend limit: what its jobs spent on each UTC day, and what becomes of a new
task once that day's total has reached the host's limit.

The day is the UTC day, whatever `CODEDESK_TIME_ZONE` says: one desk, one day boundary, the same
for every host. A job's cost counts on the day its desk hears that it ended (its `job_ended`
signal), all of it, even when its agent started the day before.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from pydantic import Field

from desk.errors import DailySpendLimitError
from desk.policy.utc_days import next_utc_day, shown_utc, utc_day
from desk.records.base import Payload

LIMIT_SETTING = "CODEDESK_DAILY_SPEND_LIMIT"


class DailyLimitAction(StrEnum):
    """What a new task gets while the day's total is at the daily limit."""

    QUEUE = "queue"
    """It waits in the desk's queue until the next UTC day."""
    REFUSE = "refuse"
    """It is refused, with the limit, what was spent and when the day resets."""


class DayLimitReached(Payload):
    """The desk's jobs spent the day's limit: new tasks wait, or are refused, until `resets_at`."""

    limit: Decimal
    spent: Decimal
    """What the desk's jobs spent on the UTC day that ends at `resets_at`."""
    resets_at: datetime


class DaySpend(Payload):
    """What the desk's finished jobs spent, in US dollars, by UTC day.

    Only the newest day is kept: the limit needs no other, and the state carried across the
    desk's continue-as-new stays small. A job whose cost is not known adds nothing.
    """

    totals: dict[date, Decimal] = Field(default_factory=dict)

    def spent_on(self, at: datetime) -> Decimal:
        """The total of the UTC day of `at` (0 when no job with a known cost ended then)."""
        return self.totals.get(utc_day(at), Decimal(0))

    def add(self, at: datetime, cost: Decimal) -> None:
        """Count `cost` on the UTC day of `at`, and forget the days before it."""
        day = utc_day(at)
        self.totals = {day: self.totals.get(day, Decimal(0)) + cost}

    def reached(self, limit: Decimal | None, at: datetime) -> DayLimitReached | None:
        """How the day of `at` stands against `limit` when its total has reached it; None while
        there is no limit or the day has some left."""
        spent = self.spent_on(at)
        if limit is None or spent < limit:
            return None
        return DayLimitReached(limit=limit, spent=spent, resets_at=next_utc_day(at))

    def left(self, limit: Decimal | None, at: datetime) -> Decimal | None:
        """What jobs may still spend on the day of `at` (never below 0); None: no limit."""
        if limit is None:
            return None
        return max(limit - self.spent_on(at), Decimal(0))


def stricter(own: Decimal | None, bound: Decimal | None) -> Decimal | None:
    """The lower of a job's own spend limit and a bound on it (None on either side: no limit)."""
    if own is None:
        return bound
    if bound is None:
        return own
    return min(own, bound)


def refusal(reached: DayLimitReached) -> DailySpendLimitError:
    """The error that refuses a new task while the day's limit is reached (`refuse`)."""
    return DailySpendLimitError(
        f"The desk's daily spend limit of ${reached.limit} ({LIMIT_SETTING} on the desk's "
        f"worker) is reached: its jobs spent ${reached.spent} today (UTC). It resets at "
        f"{shown_utc(reached.resets_at)}: submit the task again then, or have the host's "
        "operator raise the limit. Nothing was started."
    )
