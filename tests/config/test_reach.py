"""The listing's plain read of a few settings agrees with DeskSettings, or leaves it to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from desk.config.reach import DEFAULTS, Reach, plain_reach, reach_of, read_reach
from desk.config.settings import load_settings
from desk.errors import SettingsError

VALUES = {
    "home": st.sampled_from(["", " ", "~/desk", "/tmp/x y", "rel/home", "a-file"]),
    "temporal_address": st.sampled_from(["", "127.0.0.1:7233", " ", "host:1"]),
    "namespace": st.sampled_from(["", " ", "default", "ns-1", " padded "]),
    "task_queue": st.sampled_from(["", "q", "codedesk", "\t"]),
    "list_limit": st.sampled_from(
        ["", "0", "1", "007", "50", "-2", "1.5", "x", " 5", "٣", "9" * 12]
    ),
    "card_value_chars": st.sampled_from(["99", "100", "4000", "x", ""]),
    "time_zone": st.sampled_from(["", "UTC", "Asia/Tokyo", "Mars/Olympus", " UTC", "../etc"]),
}  # fmt: skip
"""Values as a person may write them, plain and odd."""

TOML_VALUES = {
    "home": st.sampled_from(['"~/t"', '""', "3"]),
    "temporal_address": st.sampled_from(['"t:1"', "1"]),
    "namespace": st.sampled_from(['"tn"', '""', "true"]),
    "task_queue": st.sampled_from(['"tq"', "[1]"]),
    "list_limit": st.sampled_from(["7", "0", '"12"', "1.0", "true"]),
    "card_value_chars": st.sampled_from(["100", "50", '"200"']),
    "time_zone": st.sampled_from(['"Asia/Tokyo"', '""', '"Nowhere/Zone"', "9"]),
}
"""Values as a TOML file may hold them (TOML syntax)."""

env_settings = st.dictionaries(st.sampled_from(list(DEFAULTS)), st.none(), max_size=6).flatmap(
    lambda names: st.fixed_dictionaries({name: VALUES[name] for name in names})
)
toml_settings = st.dictionaries(st.sampled_from(list(DEFAULTS)), st.none(), max_size=6).flatmap(
    lambda names: st.fixed_dictionaries({name: TOML_VALUES[name] for name in names})
)


def full_reach() -> Reach | str:
    """These settings as DeskSettings reads them, or the error it gives."""
    try:
        settings = load_settings()
    except SettingsError as error:
        return str(error)
    return reach_of(settings)


@hypothesis_settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(env=env_settings, toml=toml_settings)
def test_a_plain_read_is_what_desk_settings_reads(
    env: dict[str, str],
    toml: dict[str, str],
    no_env_settings: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "a-file").write_text("")
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "codedesk.toml"
    config.write_text("".join(f"{name} = {value}\n" for name, value in toml.items()))
    with monkeypatch.context() as scoped:
        scoped.setenv("CODEDESK_CONFIG", str(config))
        for name, value in env.items():
            scoped.setenv(f"CODEDESK_{name.upper()}", value)
        plain = plain_reach()
        if plain is not None:
            assert plain == full_reach(), (env, toml)
            assert read_reach() == plain


def test_the_plain_read_answers_for_plain_settings(
    no_env_settings: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Otherwise the agreement above would hold vacuously: everything left to DeskSettings."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "codedesk.toml"
    config.write_text('namespace = "from-toml"\nlist_limit = 9\n')
    monkeypatch.setenv("CODEDESK_CONFIG", str(config))
    monkeypatch.setenv("CODEDESK_TEMPORAL_ADDRESS", "127.0.0.1:1")
    monkeypatch.setenv("CODEDESK_LIST_LIMIT", "12")
    assert plain_reach() == Reach(
        home=Path("~/.codedesk").expanduser(),
        temporal_address="127.0.0.1:1",
        namespace="from-toml",
        task_queue="codedesk",
        list_limit=12,
        card_value_chars=4000,
        time_zone="",
    )


@pytest.mark.parametrize(
    ("variable", "value"),
    [("CODEDESK_LIST_LIMIT", "0"), ("CODEDESK_LIST_LIMIT", "x"), ("CODEDESK_NAMESPACE", " ")],
)
def test_a_bad_value_is_named_as_every_command_names_it(
    variable: str,
    value: str,
    no_env_settings: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(variable, value)
    assert plain_reach() is None
    with pytest.raises(SettingsError, match=variable):
        read_reach()


def test_a_name_in_another_case_is_left_to_desk_settings(
    no_env_settings: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("codedesk_namespace", "lower")
    assert plain_reach() is None
    assert read_reach().namespace == "lower"
