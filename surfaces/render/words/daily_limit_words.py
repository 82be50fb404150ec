"""The desk's daily spend limit in words: why a queued job waits for the next UTC day, and how
today stands against the limit (`codedesk task`, `jobs`, `show`, `spend`, Discord's /task)."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Protocol

from desk.config.basics.dates import shown_date


class DayStanding(Protocol):
    """Today's total against the limit: the desk's `DayLimitReached`, or a listing's view."""

    @property
    def limit(self) -> Decimal: ...

    @property
    def spent(self) -> Decimal: ...

    @property
    def resets_at(self) -> datetime: ...


def dollars(amount: Decimal) -> str:
    """`$5.00`, `$0.0123`: cents, or four places below a cent."""
    return f"${amount:.2f}" if amount >= Decimal("0.01") or amount == 0 else f"${amount:.4f}"


def day_limit_reason(day: DayStanding, zone: str = "") -> str:
    """Why a queued job waits: the limit, today's total, and when the next UTC day begins."""
    return (
        f"the desk's daily spend limit of {dollars(day.limit)} is reached "
        f"({dollars(day.spent)} spent today, UTC): it starts on the next UTC day, "
        f"{shown_date(day.resets_at, zone)} (CODEDESK_DAILY_SPEND_LIMIT)"
    )


def day_total_line(day: DayStanding, action: str, zone: str = "") -> str:
    """`Today (UTC): $1.20 of the desk's daily spend limit of $5.00; $3.80 left.`, or what new
    tasks get (`action`: queue or refuse) once the total has reached it."""
    said = f"Today (UTC): {dollars(day.spent)} of the desk's daily spend limit of "
    said += dollars(day.limit)
    if day.spent < day.limit:
        return f"{said}; {dollars(day.limit - day.spent)} left."
    what = "are refused" if action == "refuse" else "wait in the queue"
    return f"{said}: reached. New tasks {what} until {shown_date(day.resets_at, zone)}."
