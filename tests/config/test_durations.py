"""Tests of desk.config.basics.durations: reading and showing durations."""

from __future__ import annotations

from datetime import timedelta

import pytest

from desk.config.basics.durations import format_duration, parse_duration
from desk.errors import DurationError

HINT = "use a number of seconds or a duration like 90s, 10m, 1h30m"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90", timedelta(seconds=90)),
        ("0", timedelta(0)),
        ("1.5", timedelta(seconds=1.5)),
        (".5", timedelta(milliseconds=500)),
        ("90s", timedelta(seconds=90)),
        ("1.5s", timedelta(milliseconds=1500)),
        ("10m", timedelta(minutes=10)),
        ("1h", timedelta(hours=1)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("1h 30m", timedelta(hours=1, minutes=30)),
        ("1 h 30 m", timedelta(hours=1, minutes=30)),
        ("2d", timedelta(days=2)),
        ("2d3h4m5s", timedelta(days=2, hours=3, minutes=4, seconds=5)),
        ("1w", timedelta(weeks=1)),
        ("500ms", timedelta(milliseconds=500)),
        ("1s500ms", timedelta(milliseconds=1500)),
        ("1.5h", timedelta(minutes=90)),
        ("0.1s", timedelta(milliseconds=100)),
        ("1.1h", timedelta(minutes=66)),
        ("1m05s", timedelta(seconds=65)),
        ("90S", timedelta(seconds=90)),
        ("10M", timedelta(minutes=10)),
        ("1H30M", timedelta(hours=1, minutes=30)),
        ("500MS", timedelta(milliseconds=500)),
        ("2D", timedelta(days=2)),
        ("10 minutes", timedelta(minutes=10)),
        ("1 hour", timedelta(hours=1)),
        ("3 hrs 5 mins", timedelta(hours=3, minutes=5)),
        ("45 sec", timedelta(seconds=45)),
        ("2 days", timedelta(days=2)),
        ("  10m  ", timedelta(minutes=10)),
        ("PT1H30M", timedelta(hours=1, minutes=30)),
        ("pt1h30m", timedelta(hours=1, minutes=30)),
        ("PT90S", timedelta(seconds=90)),
        ("PT0.5S", timedelta(milliseconds=500)),
        ("PT1,5S", timedelta(milliseconds=1500)),
        ("P2D", timedelta(days=2)),
        ("P1DT12H", timedelta(days=1, hours=12)),
        ("P1W", timedelta(weeks=1)),
        ("PT10M", timedelta(minutes=10)),
        ("0.0000004s", timedelta(0)),
        ("0.0000006s", timedelta(microseconds=1)),
    ],
)
def test_parse_duration_reads_strings(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, timedelta(0)),
        (90, timedelta(seconds=90)),
        (1.5, timedelta(milliseconds=1500)),
        (0.001, timedelta(milliseconds=1)),
        (1.1, timedelta(microseconds=1_100_000)),
        (86_400 * 3, timedelta(days=3)),
    ],
)
def test_parse_duration_reads_numbers_as_seconds(value: int | float, expected: timedelta) -> None:
    assert parse_duration(value) == expected


@pytest.mark.parametrize(
    "value", [timedelta(0), timedelta(minutes=5), timedelta(days=3, microseconds=7)]
)
def test_parse_duration_returns_a_timedelta_as_is(value: timedelta) -> None:
    assert parse_duration(value) is value


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "is empty"),
        ("   ", "is empty"),
        ("-5", "is negative"),
        ("-5s", "is negative"),
        (" -1h", "is negative"),
        ("-PT1H", "is negative"),
        ("5x", "has the unknown unit 'x'"),
        ("10 fortnights", "has the unknown unit 'fortnights'"),
        ("1y", "has the unknown unit 'y'"),
        ("3mo", "has the unknown unit 'mo'"),
        ("1e5", "has the unknown unit 'e'"),
        ("abc", "could not be read"),
        ("h", "could not be read"),
        ("1h-30m", "could not be read"),
        ("1,5h", "could not be read"),
        ("+5s", "could not be read"),
        ("1h30", "ends in a number with no unit"),
        ("1h1h", "repeats a unit or names them out of order"),
        ("30m1h", "repeats a unit or names them out of order"),
        ("1m1min", "repeats a unit or names them out of order"),
        ("1..5s", "could not be read"),
        ("P", "is not an ISO 8601 duration"),
        ("PT", "is not an ISO 8601 duration"),
        ("P1DT", "is not an ISO 8601 duration"),
        ("PT1H30", "is not an ISO 8601 duration"),
        ("P1H", "is not an ISO 8601 duration"),
        ("PT1M1H", "is not an ISO 8601 duration"),
        ("P1Y", "uses years or months"),
        ("P2M", "uses years or months"),
        ("P1Y2M3DT4H", "uses years or months"),
        ("99999999999999d", "is too long to represent"),
    ],
)
def test_parse_duration_refuses_strings(text: str, reason: str) -> None:
    with pytest.raises(DurationError) as caught:
        parse_duration(text)
    message = str(caught.value)
    assert message.startswith(f"Duration {text!r} ")
    assert reason in message
    assert HINT in message
    assert message.endswith(".")


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (-1, "is negative"),
        (-0.5, "is negative"),
        (float("nan"), "is not a finite number"),
        (float("inf"), "is not a finite number"),
        (10**20, "is too long to represent"),
        (True, "is a yes/no value"),
        (False, "is a yes/no value"),
        (timedelta(seconds=-1), "is negative"),
    ],
)
def test_parse_duration_refuses_other_values(value: int | float | timedelta, reason: str) -> None:
    with pytest.raises(DurationError) as caught:
        parse_duration(value)
    assert reason in str(caught.value)
    assert HINT in str(caught.value)


def test_parse_duration_refuses_a_wrong_type() -> None:
    with pytest.raises(DurationError, match="is a list, not a duration"):
        parse_duration([1])  # type: ignore[arg-type]


def test_parse_duration_message_cuts_a_huge_input() -> None:
    with pytest.raises(DurationError) as caught:
        parse_duration("x" * 10_000)
    assert len(str(caught.value)) < 300


@pytest.mark.parametrize(
    ("td", "expected"),
    [
        (timedelta(0), "0s"),
        (timedelta(microseconds=1), "<1ms"),
        (timedelta(microseconds=999), "<1ms"),
        (timedelta(milliseconds=1), "1ms"),
        (timedelta(milliseconds=850), "850ms"),
        (timedelta(microseconds=999_999), "999ms"),
        (timedelta(seconds=1), "1.0s"),
        (timedelta(milliseconds=1500), "1.5s"),
        (timedelta(milliseconds=3250), "3.2s"),
        (timedelta(milliseconds=9999), "9.9s"),
        (timedelta(seconds=10), "10s"),
        (timedelta(seconds=12, milliseconds=900), "12s"),
        (timedelta(seconds=59, microseconds=999_999), "59s"),
        (timedelta(seconds=60), "1m00s"),
        (timedelta(seconds=65), "1m05s"),
        (timedelta(minutes=59, seconds=59), "59m59s"),
        (timedelta(hours=1), "1h00m"),
        (timedelta(hours=1, minutes=30, seconds=59), "1h30m"),
        (timedelta(hours=23, minutes=59, seconds=59), "23h59m"),
        (timedelta(days=1), "1d00h"),
        (timedelta(days=2, hours=3, minutes=59), "2d03h"),
        (timedelta(days=400, hours=23), "400d23h"),
        (timedelta(seconds=-90), "-1m30s"),
        (timedelta(milliseconds=-850), "-850ms"),
    ],
)
def test_format_duration(td: timedelta, expected: str) -> None:
    assert format_duration(td) == expected


@pytest.mark.parametrize(
    "td",
    [
        timedelta(0),
        timedelta(milliseconds=850),
        timedelta(milliseconds=3200),
        timedelta(seconds=12),
        timedelta(seconds=65),
        timedelta(hours=1),
        timedelta(hours=5, minutes=7),
        timedelta(days=2, hours=3),
    ],
)
def test_format_duration_reads_back(td: timedelta) -> None:
    assert parse_duration(format_duration(td)) == td
