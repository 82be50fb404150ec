"""Read durations like "90s", "1h30m" or "PT1H30M", and show them in a short human form."""

from __future__ import annotations

import math
import re
from datetime import timedelta
from decimal import ROUND_HALF_EVEN, Decimal

from desk.errors import DurationError

MAX_DURATION = timedelta(milliseconds=2_147_483_647)
"""The longest duration any budget or bound may be (Temporal's and most timers' 32-bit ms)."""

_HINT = "use a number of seconds or a duration like 90s, 10m, 1h30m, 2d or PT1H30M."
_MAX_SHOWN = 100

_MICROSECONDS: dict[str, int] = {
    "w": 7 * 86_400_000_000,
    "d": 86_400_000_000,
    "h": 3_600_000_000,
    "m": 60_000_000,
    "s": 1_000_000,
    "ms": 1_000,
}
"""Microseconds in each unit, largest first; a compact duration names them in this order."""

_UNIT_ALIASES: dict[str, str] = {
    **{alias: "w" for alias in ("w", "wk", "wks", "week", "weeks")},
    **{alias: "d" for alias in ("d", "day", "days")},
    **{alias: "h" for alias in ("h", "hr", "hrs", "hour", "hours")},
    **{alias: "m" for alias in ("m", "min", "mins", "minute", "minutes")},
    **{alias: "s" for alias in ("s", "sec", "secs", "second", "seconds")},
    **{alias: "ms" for alias in ("ms", "msec", "msecs", "millisecond", "milliseconds")},
}

_NUMBER = r"(?:\d+(?:\.\d*)?|\.\d+)"
_SECONDS = re.compile(_NUMBER)
_COMPONENT = re.compile(rf"\s*({_NUMBER})\s*([a-z]+)\s*")
_ISO = re.compile(
    r"P(?:(?P<w>\d+(?:[.,]\d+)?)W"
    r"|(?:(?P<d>\d+(?:[.,]\d+)?)D)?"
    r"(?:T(?:(?P<h>\d+(?:[.,]\d+)?)H)?(?:(?P<m>\d+(?:[.,]\d+)?)M)?(?:(?P<s>\d+(?:[.,]\d+)?)S)?)?)"
)


def _refuse(text: object, problem: str) -> DurationError:
    shown = repr(text) if isinstance(text, str) else str(text)
    if len(shown) > _MAX_SHOWN:
        shown = shown[:_MAX_SHOWN] + "..."
    return DurationError(f"Duration {shown} {problem}: {_HINT}")


def _from_microseconds(text: object, microseconds: Decimal) -> timedelta:
    whole = int(microseconds.to_integral_value(rounding=ROUND_HALF_EVEN))
    try:
        return timedelta(microseconds=whole)
    except OverflowError:
        raise _refuse(text, "is too long to represent") from None


def _parse_compact(text: str, lowered: str) -> Decimal:
    """Sum "1h 30m"-style components, each unit at most once and largest first."""
    total = Decimal(0)
    position = 0
    previous_rank = -1
    order = list(_MICROSECONDS)
    while position < len(lowered):
        match = _COMPONENT.match(lowered, position)
        if match is None:
            if re.fullmatch(rf"\s*{_NUMBER}\s*", lowered[position:]):
                raise _refuse(text, "ends in a number with no unit after it")
            raise _refuse(text, "could not be read")
        number, alias = match.groups()
        unit = _UNIT_ALIASES.get(alias)
        if unit is None:
            raise _refuse(text, f"has the unknown unit {alias!r}")
        rank = order.index(unit)
        if rank <= previous_rank:
            raise _refuse(text, "repeats a unit or names them out of order (largest first)")
        previous_rank = rank
        total += Decimal(number) * _MICROSECONDS[unit]
        position = match.end()
    return total


def _parse_iso(text: str, upper: str) -> Decimal:
    match = _ISO.fullmatch(upper)
    if match is None or not any(match.groupdict().values()) or upper.endswith("T"):
        if re.match(r"P[\d.,]+[YM]", upper):
            raise _refuse(text, "uses years or months, which have no fixed length")
        raise _refuse(text, "is not an ISO 8601 duration such as PT1H30M")
    total = Decimal(0)
    for unit, number in match.groupdict().items():
        if number is not None:
            total += Decimal(number.replace(",", ".")) * _MICROSECONDS[unit]
    return total


def parse_duration(text: str | int | float | timedelta) -> timedelta:
    """Read a duration from a setting, an option or a command.

    Accepts a `timedelta` as it is; a number of seconds (`90`, `1.5`, also as a string); a
    compact duration of units largest first, each at most once, optionally spaced: `500ms`,
    `90s`, `10m`, `1h30m`, `1h 30m`, `2d`, `1.5h` (units w, d, h, m, s, ms and their spelled-out
    forms, in any case); or an ISO 8601 duration without years or months (`PT1H30M`, `P2D`).
    Sub-microsecond parts are rounded to the nearest microsecond.

    Raises:
        DurationError: the value is negative, empty, not finite, too long, has an unknown unit,
            or cannot be read; the message quotes it and gives examples.
    """
    if isinstance(text, timedelta):
        if text < timedelta(0):
            raise _refuse(text, "is negative")
        return text
    if isinstance(text, bool):
        # bool is an int; True seconds is surely a mistake, not a duration.
        raise _refuse(text, "is a yes/no value, not a duration")
    if isinstance(text, int | float):
        if isinstance(text, float) and not math.isfinite(text):
            raise _refuse(text, "is not a finite number")
        if text < 0:
            raise _refuse(text, "is negative")
        return _from_microseconds(text, Decimal(text) * _MICROSECONDS["s"])
    if not isinstance(text, str):
        raise _refuse(text, f"is a {type(text).__name__}, not a duration")

    stripped = text.strip()
    if not stripped:
        raise _refuse(text, "is empty")
    if stripped.startswith("-"):
        raise _refuse(text, "is negative")
    if _SECONDS.fullmatch(stripped):
        total = Decimal(stripped) * _MICROSECONDS["s"]
    elif stripped[0] in "pP":
        total = _parse_iso(text, stripped.upper())
    else:
        total = _parse_compact(text, stripped.lower())
    return _from_microseconds(text, total)


def format_duration(td: timedelta) -> str:
    """Show a duration in a short human form, always rounded down.

    The form depends on the size, so a glance tells the scale:

    - zero: `0s`; under 1 ms: `<1ms`; under 1 s: whole milliseconds, `850ms`;
    - under 10 s: seconds with one decimal, `3.2s`;
    - under 1 min: whole seconds, `12s`;
    - under 1 h: minutes and two-digit seconds, `1m05s`;
    - under 1 day: hours and two-digit minutes, `1h00m`;
    - from 1 day: days and two-digit hours, `2d03h`.

    Rounding down means a value never shows as more than it is and never jumps to the next
    form early (9.99 s is `9.9s`, not `10.0s`). A negative duration gets a leading '-'.
    Every form except `<1ms` reads back with `parse_duration`.
    """
    if td < timedelta(0):
        return "-" + format_duration(-td)
    micro = td // timedelta(microseconds=1)
    if micro == 0:
        return "0s"
    if micro < 1_000:
        return "<1ms"
    if micro < 1_000_000:
        return f"{micro // 1_000}ms"
    if micro < 10_000_000:
        tenths = micro // 100_000
        return f"{tenths // 10}.{tenths % 10}s"
    seconds = micro // 1_000_000
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3_600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    if seconds < 86_400:
        return f"{seconds // 3_600}h{seconds % 3_600 // 60:02d}m"
    return f"{seconds // 86_400}d{seconds % 86_400 // 3_600:02d}h"
