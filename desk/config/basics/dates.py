"""Dates as a person reads them: in the host's configured time zone (CODEDESK_TIME_ZONE)."""

from __future__ import annotations

from datetime import datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from desk.errors import SettingsError


def zone_of(name: str) -> tzinfo | None:
    """The IANA zone `name` (None for empty: the machine's own zone).

    Raises:
        SettingsError: no such zone is known on this machine.
    """
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise SettingsError(
            f"{name!r} is not a time zone this machine knows: use an IANA name such as UTC, "
            "Europe/Berlin or America/New_York."
        ) from None


def shown_date(when: datetime, zone: str = "") -> str:
    """`2026-12-01 21:26:00 UTC`: `when` in `zone` (empty: the machine's), to the second."""
    local = when.astimezone(zone_of(zone))
    return local.strftime("%Y-%m-%d %H:%M:%S %Z").strip()
