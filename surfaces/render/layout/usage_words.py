"""What an agent used, in words: tokens in, out and cached, and the cost or "cost unknown"."""

from __future__ import annotations

from desk.usage.tally import USD, Usage

COST_PLACES = 4
"""Decimal places a cost is shown with (a cent's hundredth: a short job costs that little)."""


def cost_words(usage: Usage) -> str:
    """`$0.0123`, `0.0123 EUR`, or "cost unknown" (never $0 for a cost nobody reported)."""
    if usage.cost is None:
        return "cost unknown"
    amount = f"{usage.cost:.{COST_PLACES}f}"
    return f"${amount}" if usage.currency == USD else f"{amount} {usage.currency}"


def usage_words(usage: Usage) -> str:
    """`1,200 tokens in, 300 out, 5 cached; $0.0123`."""
    tokens = (
        f"{usage.input_tokens:,} tokens in, {usage.output_tokens:,} out,"
        f" {usage.cached_tokens:,} cached"
    )
    model = f" ({usage.model})" if usage.model else ""
    return f"{tokens}{model}; {cost_words(usage)}"
