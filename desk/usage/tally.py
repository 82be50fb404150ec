"""A usage tally: input, output and cached tokens, and the cost when it is known."""

from __future__ import annotations

from decimal import Decimal

from pydantic import BaseModel, ConfigDict, Field

USD = "USD"
UNKNOWN_MODEL = "unknown model"


class ModelUsage(BaseModel):
    """What one model used, within a `Usage` of several models."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost: Decimal | None = None

    def plus(self, other: ModelUsage) -> ModelUsage:
        """Both added; the cost is unknown if either part's is."""
        cost = None if self.cost is None or other.cost is None else self.cost + other.cost
        return ModelUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cost=cost,
        )


class Usage(BaseModel):
    """Tokens and money one agent run (or several, added) used.

    `cost` is None when it is not known (a CLI that reports no money and a model the price
    table does not name): it is never taken as 0. A sum with an unknown part is unknown.
    `by_model` parts the totals by model when a CLI says what each model used (Claude Code's
    `modelUsage`: its subagents and side requests may run on other models than the main one);
    empty when the CLI names one model at most (`model`).
    """

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost: Decimal | None = None
    currency: str = USD
    model: str | None = None
    by_model: dict[str, ModelUsage] = Field(default_factory=dict)

    @property
    def tokens(self) -> int:
        """Every token counted: input, output and cached."""
        return self.input_tokens + self.output_tokens + self.cached_tokens

    @property
    def empty(self) -> bool:
        """Nothing was used (or nothing was reported)."""
        return self.tokens == 0 and not self.cost

    def plus(self, other: Usage) -> Usage:
        """This tally and `other` added; the cost is unknown if either part's is (unless a part
        used nothing) or if they are in different currencies."""
        if other.empty:
            return self
        if self.empty:
            return other
        cost = None
        if self.cost is not None and other.cost is not None and self.currency == other.currency:
            cost = self.cost + other.cost
        by_model: dict[str, ModelUsage] = {}
        if self.by_model or other.by_model:
            for name, used in [*self.models().items(), *other.models().items()]:
                by_model[name] = by_model[name].plus(used) if name in by_model else used
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cost=cost,
            currency=self.currency,
            model=self.model if self.model == other.model else self.model or other.model,
            by_model=by_model,
        )

    def models(self) -> dict[str, ModelUsage]:
        """What each model used: `by_model`, or the whole tally under its one model's name
        ("unknown model" when it names none)."""
        if self.by_model:
            return dict(self.by_model)
        whole = ModelUsage(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cached_tokens=self.cached_tokens,
            cost=self.cost,
        )
        return {self.model or UNKNOWN_MODEL: whole}


def count(value: object) -> int:
    """A token count from a JSON value: a non-negative int, anything else 0."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return 0


def money(value: object) -> Decimal | None:
    """An amount from a JSON number or a decimal string (exact: the text the CLI printed)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        amount = Decimal(str(value))
    except ArithmeticError:
        return None
    return amount if amount.is_finite() and amount >= 0 else None
