"""The usage settings: the price table and the job's spend limit, read and refused."""

from __future__ import annotations

from decimal import Decimal

import pytest

from desk.config.settings import load_settings
from desk.errors import SettingsError


def test_an_empty_spend_limit_is_none_and_a_negative_one_is_refused() -> None:
    assert load_settings(job_spend_limit="").job_spend_limit is None
    assert load_settings(job_spend_limit="2.50").job_spend_limit == Decimal("2.50")
    with pytest.raises(SettingsError, match="CODEDESK_JOB_SPEND_LIMIT"):
        load_settings(job_spend_limit="-1")


def test_a_malformed_price_table_is_refused_with_how_to_write_it() -> None:
    assert load_settings(prices="gpt-5=1.25/10").prices == "gpt-5=1.25/10"
    with pytest.raises(SettingsError, match=r"CODEDESK_PRICES.*model=input/output"):
        load_settings(prices="gpt-5")
