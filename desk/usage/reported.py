"""Usage a command agent reports itself: one JSON line on the hold channel.

A custom agent (any `--agent-command`) connects to `$CODEDESK_HOLD_SOCKET` and sends, on one
connection, one line and no answer is awaited:

    {"kind": "usage", "job": 12, "input_tokens": 1200, "output_tokens": 300, "cached_tokens": 0,
     "cost": "0.0123", "currency": "USD", "model": "my-model"}

`job` is `$CODEDESK_JOB`. Each message is what was used since the last one (it is added to the
job's total). Every field but `kind` and `job` may be left out; a cost left out is priced by
the owner's table, or unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from desk.usage.tally import USD, Usage, count, money

USAGE = "usage"
MAX_USAGE_BYTES = 1024
"""A usage message longer than this is not read."""
FIELDS = frozenset(
    {"kind", "input_tokens", "output_tokens", "cached_tokens", "cost", "currency", "model"}
)


def reported_usage(message: Mapping[str, Any]) -> Usage:
    """The usage in a `usage` message; a ValueError (the message is refused) when it is not one."""
    if message.get("kind") != USAGE:
        raise ValueError("the message is not a usage report")
    unknown = sorted(set(message) - FIELDS)
    if unknown:
        raise ValueError(f"a usage report has no field {unknown[0]!r}")
    for name in ("input_tokens", "output_tokens", "cached_tokens"):
        if name in message and count(message[name]) != message[name]:
            raise ValueError(f"a usage report's {name} is not a whole number of tokens")
    cost = money(message["cost"]) if "cost" in message else None
    if "cost" in message and cost is None:
        raise ValueError("a usage report's cost is not an amount (a number or a decimal string)")
    currency, model = message.get("currency", USD), message.get("model")
    if not isinstance(currency, str) or not currency.isalpha():
        raise ValueError("a usage report's currency is not a currency code")
    if model is not None and not isinstance(model, str):
        raise ValueError("a usage report's model is not a name")
    return Usage(
        input_tokens=count(message.get("input_tokens")),
        output_tokens=count(message.get("output_tokens")),
        cached_tokens=count(message.get("cached_tokens")),
        cost=cost,
        currency=currency.upper(),
        model=model,
    )
