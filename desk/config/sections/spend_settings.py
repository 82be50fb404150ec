"""The spend's settings: what tokens cost, and how much a job and a day may spend."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, ClassVar

from pydantic import BeforeValidator, Field, field_validator

from desk.config.basics.section_base import SettingsSection, blank_is_none
from desk.policy.daily import DailyLimitAction
from desk.usage.prices import parse_prices

Dollars = Annotated[Decimal | None, BeforeValidator(blank_is_none)]
"""A limit in US dollars; empty: no limit."""


class SpendSettings(SettingsSection):
    """Spend: the price table for CLIs that report no money, a job's and a day's limits in
    dollars, and what a new task gets once the day's limit is reached."""

    heading: ClassVar[str] = "Spend"

    prices: str = Field(
        default="",
        description=(
            "Dollars per million tokens for agent CLIs that report tokens but no money, as"
            " `model=input/output[/cached]`, comma-separated (e.g. `gpt-5=1.25/10/0.125`);"
            " a model not named: cost unknown."
        ),
    )
    job_spend_limit: Dollars = Field(
        default=None,
        ge=0,
        description=(
            "The most a job's agent may spend, in US dollars, before it is stopped (its usage"
            " priced by the CLI or by `prices`; tokens at an unknown cost stop it too). Empty:"
            " no limit."
        ),
    )
    daily_spend_limit: Dollars = Field(
        default=None,
        ge=0,
        description=(
            "The most the desk's jobs may spend in one UTC day, in US dollars: once today's"
            " total reaches it, new tasks wait or are refused (`daily_limit_action`), and each"
            " job's spend limit is at most what is left of the day. Empty: no limit."
        ),
    )
    daily_limit_action: DailyLimitAction = Field(
        default=DailyLimitAction.QUEUE,
        description=(
            "What a new task gets once today's total has reached `daily_spend_limit`: queue"
            " (it waits in the desk's queue until the next UTC day) or refuse."
        ),
    )

    @field_validator("prices")
    @classmethod
    def _price_table(cls, value: str) -> str:
        parse_prices(value)
        return value
