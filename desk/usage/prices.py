"""The owner's price table: money per million tokens, by model, for CLIs that report no money.

Written as `model=input/output[/cached]`, entries separated by commas, amounts in US dollars per
million tokens (`CODEDESK_PRICES="gpt-5=1.25/10/0.125,claude-sonnet-4-5=3/15/0.3"`). A cached
price left out is the input price.
"""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict

from desk.usage.tally import Usage, money

MILLION = Decimal(1_000_000)


class Price(BaseModel):
    """One model's price per million tokens."""

    model_config = ConfigDict(frozen=True)

    input: Decimal
    output: Decimal
    cached: Decimal


def parse_prices(text: str) -> dict[str, Price]:
    """The table in `text`; a malformed entry is a ValueError that says how to write it."""
    table: dict[str, Price] = {}
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        model, sep, amounts = entry.partition("=")
        parts = [money(part.strip()) for part in amounts.split("/")]
        if not sep or not model.strip() or len(parts) not in (2, 3) or None in parts:
            raise ValueError(
                f"price entry {entry!r} is not model=input/output[/cached]: write dollars per"
                " million tokens, e.g. gpt-5=1.25/10/0.125"
            )
        amount = [part for part in parts if part is not None]
        table[model.strip()] = Price(
            input=amount[0], output=amount[1], cached=amount[2] if len(amount) == 3 else amount[0]
        )
    return table


def priced(usage: Usage, table: dict[str, Price]) -> Usage:
    """`usage` with its cost from `table` when the CLI reported none; still unknown when the
    model is not in the table (never 0)."""
    if usage.cost is not None or usage.empty:
        return usage
    price = table.get(usage.model or "")
    if price is None:
        return usage
    cost = (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cached_tokens * price.cached
    ) / MILLION
    return usage.model_copy(update={"cost": cost})
