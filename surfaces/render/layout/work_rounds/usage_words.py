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
    """`1,200 tokens in, 300 out, 5 cached; $0.0123`, and each model's part when several
    models were used: `(claude-opus-4-8: 1,100 in, 290 out, 5 cached, $0.0120;
    claude-haiku-4-5: 100 in, 10 out, 0 cached, $0.0003)`."""
    tokens = _tokens(usage.input_tokens, usage.output_tokens, usage.cached_tokens, " tokens")
    if usage.by_model:
        parts = "; ".join(
            f"{name}: {_tokens(part.input_tokens, part.output_tokens, part.cached_tokens)}, "
            + cost_words(Usage(cost=part.cost, currency=usage.currency))
            for name, part in usage.by_model.items()
        )
        return f"{tokens}; {cost_words(usage)} ({parts})"
    model = f" ({usage.model})" if usage.model else ""
    return f"{tokens}{model}; {cost_words(usage)}"


def _tokens(given: int, made: int, cached: int, unit: str = "") -> str:
    return f"{given:,}{unit} in, {made:,} out, {cached:,} cached"
