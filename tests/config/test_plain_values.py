"""A listing's plain judgement of every other setting: never sure of a value DeskSettings refuses,
sure of the plain ones, and a bad value stops a listing with the message every command gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from desk.config.basics.setting_names import SETTING_NAMES
from desk.config.plain_values import CHECKS, surely_valid
from desk.config.reach import DEFAULTS, plain_reach, read_reach
from desk.config.settings import DeskSettings, load_settings
from desk.errors import SettingsError

CANDIDATES = [
    "", " ", "0", "1", "4", "007", "-1", "19", "20", "21", "50", "51", "99", "100", "1023", "1024",
    "65535", "65536", "lots", "1.5", "2s", "90s", "10m", "11m", "1h", "2d", "forever", "PT1H",
    "0s", "true", "False", "yes", "on", "maybe", "auto", "bwrap", "none", "*", "a.example:443",
    "bad pattern", "push", "push,destructive", "nope", "123", "12,34", "12,x", "me/api",
    "https://github.com/{repo}.git", "https://x/y.git", "host-1", "bad host", "a,b", "gpt=1/2",
    "queue", "refuse", "3.25", "http://127.0.0.1:1/x", "~/a-file",
]  # fmt: skip
"""Values as a person may write them, plain and odd, good for some settings, bad for others."""

given_settings = st.dictionaries(
    st.sampled_from(sorted(CHECKS)), st.sampled_from(CANDIDATES), max_size=4
)


def loads() -> bool:
    try:
        load_settings()
    except SettingsError:
        return False
    return True


@hypothesis_settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=given_settings)
def test_a_value_judged_plainly_valid_is_one_desk_settings_takes(
    values: dict[str, str],
    no_env_settings: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "a-file").write_text("")
    monkeypatch.chdir(tmp_path)
    with monkeypatch.context() as scoped:
        scoped.setenv("HOME", str(tmp_path))
        for name, value in values.items():
            scoped.setenv(f"CODEDESK_{name.upper()}", value)
        if surely_valid(values):
            assert loads(), values


def test_every_setting_is_judged_here_or_by_the_listing_read() -> None:
    assert set(CHECKS) == SETTING_NAMES - set(DEFAULTS)


@pytest.mark.parametrize(
    "name",
    [
        name
        for name, field in DeskSettings.model_fields.items()
        if field.annotation is int and name in CHECKS
    ],
)
def test_an_integer_setting_has_the_bounds_desk_settings_gives_it(name: str) -> None:
    bounds = {type(rule).__name__: rule for rule in DeskSettings.model_fields[name].metadata}
    low = bounds["Ge"].ge
    assert CHECKS[name](str(low)) and not CHECKS[name](str(low - 1))
    if "Le" in bounds:
        high = bounds["Le"].le
        assert CHECKS[name](str(high)) and not CHECKS[name](str(high + 1))
    else:
        assert CHECKS[name](str(low + 10**6))


def test_plain_values_of_other_settings_keep_the_listing_read_plain(
    no_env_settings: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Otherwise the agreement above would hold vacuously: everything read in full."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "codedesk.toml"
    config.write_text('work_budget = "20m"\nmax_queued = 3\nowners = ["local:a", "local:b"]\n')
    monkeypatch.setenv("CODEDESK_CONFIG", str(config))
    for variable, value in {
        "CODEDESK_MAX_WORKERS": "4",
        "CODEDESK_HEARTBEAT_TIMEOUT": "2s",
        "CODEDESK_SANDBOX": "none",
        "CODEDESK_SANDBOX_READ_PATHS": "/a,/b",
        "CODEDESK_HOLD_CLASSES": "push,destructive",
        "CODEDESK_SANDBOX_NETWORK": "false",
    }.items():
        monkeypatch.setenv(variable, value)
    assert plain_reach() is not None
    assert loads()


@pytest.mark.parametrize(
    ("variables", "toml"),
    [
        ({"CODEDESK_MAX_WORKERS": "lots"}, ""),
        ({}, 'work_budget = "forever"\n'),
        ({"CODEDESK_WORK_BUDGET": "2d"}, ""),  # above work_budget_max's default
        ({"CODEDESK_HOLD_WAIT": "11m"}, ""),  # the hook's timeout leaves no margin
        ({"CODEDESK_SANDBOX": "docker"}, ""),
        ({"CODEDESK_DISCORD_OWNER_IDS": "12,me"}, ""),
    ],
    ids=["integer", "toml-duration", "budget-over-bound", "hold-wait-over-hook", "mode", "ids"],
)
def test_a_bad_value_of_any_setting_stops_the_listing_read_as_every_command(
    variables: dict[str, str],
    toml: str,
    no_env_settings: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    if toml:
        (tmp_path / "codedesk.toml").write_text(toml)
    for variable, value in variables.items():
        monkeypatch.setenv(variable, value)
    assert plain_reach() is None
    with pytest.raises(SettingsError) as every_command:
        load_settings()
    with pytest.raises(SettingsError) as listing:
        read_reach()
    assert str(listing.value) == str(every_command.value)
