"""The UTC day a desk counts its spend by: its date, when the next one begins, how a reset is
said. Plain datetimes, so a listing that imports no pydantic reads a day's total too."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta


def utc_day(at: datetime) -> date:
    """The UTC day `at` (a timezone-aware instant) falls on."""
    return at.astimezone(UTC).date()


def next_utc_day(at: datetime) -> datetime:
    """When the UTC day after `at`'s begins: the next 00:00 UTC, strictly after `at`."""
    return datetime.combine(utc_day(at) + timedelta(days=1), time(), tzinfo=UTC)


def shown_utc(at: datetime) -> str:
    """`2026-12-03 00:00 UTC`: how a day's reset is said (UTC, whatever the host's zone)."""
    return f"{at.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
