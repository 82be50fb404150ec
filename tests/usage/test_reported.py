"""The one-line usage message a command agent sends on the hold channel."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from desk.usage.reported import reported_usage
from desk.usage.tally import Usage


def test_a_full_report_is_read() -> None:
    message = {
        "kind": "usage",
        "input_tokens": 1200,
        "output_tokens": 300,
        "cached_tokens": 5,
        "cost": "0.0123",
        "currency": "usd",
        "model": "my-model",
    }
    assert reported_usage(message) == Usage(
        input_tokens=1200,
        output_tokens=300,
        cached_tokens=5,
        cost=Decimal("0.0123"),
        model="my-model",
    )


def test_a_report_without_cost_is_cost_unknown() -> None:
    assert reported_usage({"kind": "usage", "output_tokens": 3}).cost is None


@pytest.mark.parametrize(
    ("message", "why"),
    [
        ({"kind": "tally"}, "not a usage report"),
        ({"kind": "usage", "tokens": 3}, "no field 'tokens'"),
        ({"kind": "usage", "input_tokens": -1}, "whole number"),
        ({"kind": "usage", "input_tokens": 1.5}, "whole number"),
        ({"kind": "usage", "input_tokens": True}, "whole number"),
        ({"kind": "usage", "cost": "lots"}, "not an amount"),
        ({"kind": "usage", "cost": "NaN"}, "not an amount"),
        ({"kind": "usage", "currency": "$"}, "currency"),
        ({"kind": "usage", "model": 3}, "model"),
    ],
)
def test_a_bad_report_is_refused(message: dict[str, Any], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        reported_usage(message)
