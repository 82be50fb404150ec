"""Settings: CODEDESK_* variables, codedesk.toml, precedence, defaults and clear errors."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from desk.config.settings import load_settings
from desk.errors import SettingsError


@pytest.fixture
def cwd(no_env_settings: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory (no stray codedesk.toml) and a HOME of the test's own."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def write_toml(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def refusal(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> str:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as caught:
        load_settings()
    return str(caught.value)


# Defaults


def test_defaults(cwd: Path, tmp_path: Path) -> None:
    settings = load_settings()
    home = tmp_path / "user" / ".codedesk"
    assert settings.home == home
    assert settings.home.is_absolute()
    assert settings.shelf == home / "shelf"
    assert settings.shelf_dir == home / "shelf"
    assert settings.jobs_dir == home / "jobs"
    assert settings.clone_source == "https://github.com/{repo}.git"
    assert settings.work_budget == timedelta(hours=1)
    assert settings.report_output_chars == 20_000
    assert settings.temporal_address == ""
    assert settings.namespace == "default"
    assert settings.task_queue == "codedesk"
    assert (settings.port, settings.ui_port) == (7233, 8233)


def test_shelf_follows_home_unless_set(cwd: Path, tmp_path: Path) -> None:
    assert load_settings(home=tmp_path / "h").shelf == tmp_path / "h" / "shelf"
    settings = load_settings(home=tmp_path / "h", shelf=tmp_path / "elsewhere")
    assert settings.shelf == tmp_path / "elsewhere"


# Environment variables


def test_settings_from_environment(
    cwd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEDESK_HOME", str(tmp_path / "env-home"))
    monkeypatch.setenv("CODEDESK_TEMPORAL_ADDRESS", "temporal.example:7233")
    monkeypatch.setenv("CODEDESK_NAMESPACE", "jobs")
    monkeypatch.setenv("CODEDESK_TASK_QUEUE", "desk-q")
    monkeypatch.setenv("CODEDESK_CLONE_SOURCE", "https://git.example/{repo}.git")
    monkeypatch.setenv("CODEDESK_AGENT_COMMAND", "aider --message {task}")
    monkeypatch.setenv("CODEDESK_WORK_BUDGET", "10m")
    monkeypatch.setenv("CODEDESK_REPORT_OUTPUT_CHARS", "500")
    monkeypatch.setenv("CODEDESK_PORT", "17233")
    settings = load_settings()
    assert settings.home == tmp_path / "env-home"
    assert settings.shelf == tmp_path / "env-home" / "shelf"
    assert settings.temporal_address == "temporal.example:7233"
    assert settings.namespace == "jobs"
    assert settings.task_queue == "desk-q"
    assert settings.clone_source == "https://git.example/{repo}.git"
    assert settings.agent_command == "aider --message {task}"
    assert settings.work_budget == timedelta(minutes=10)
    assert settings.report_output_chars == 500
    assert settings.port == 17233


def test_home_and_shelf_expand_the_user_directory(
    cwd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEDESK_HOME", "~/desk-home")
    monkeypatch.setenv("CODEDESK_SHELF", "~/clones")
    settings = load_settings()
    assert settings.home == tmp_path / "user" / "desk-home"
    assert settings.shelf == tmp_path / "user" / "clones"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90s", timedelta(seconds=90)),
        ("10m", timedelta(minutes=10)),
        ("1h30m", timedelta(hours=1, minutes=30)),
        ("2h", timedelta(hours=2)),
        ("45", timedelta(seconds=45)),
        ("PT1H30M", timedelta(hours=1, minutes=30)),
    ],
)
def test_work_budget_reads_durations(
    cwd: Path, monkeypatch: pytest.MonkeyPatch, text: str, expected: timedelta
) -> None:
    monkeypatch.setenv("CODEDESK_WORK_BUDGET", text)
    assert load_settings().work_budget == expected
    assert load_settings(work_budget=text).work_budget == expected


def test_unknown_variables_are_ignored(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEDESK_NO_SUCH_SETTING", "x")
    assert load_settings().namespace == "default"


# codedesk.toml


TOML = """\
home = "{home}"
namespace = "from-toml"
task_queue = "toml-q"
work_budget = "1h30m"
report_output_chars = 1234
port = 17000
"""


def test_settings_from_the_toml_named_by_codedesk_config(
    cwd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = write_toml(tmp_path / "elsewhere.toml", TOML.format(home=tmp_path / "toml-home"))
    monkeypatch.setenv("CODEDESK_CONFIG", str(config))
    settings = load_settings()
    assert settings.home == tmp_path / "toml-home"
    assert settings.shelf == tmp_path / "toml-home" / "shelf"
    assert settings.namespace == "from-toml"
    assert settings.task_queue == "toml-q"
    assert settings.work_budget == timedelta(hours=1, minutes=30)
    assert settings.report_output_chars == 1234
    assert settings.port == 17000


def test_settings_from_codedesk_toml_in_the_working_directory(cwd: Path, tmp_path: Path) -> None:
    write_toml(cwd / "codedesk.toml", TOML.format(home=tmp_path / "toml-home"))
    settings = load_settings()
    assert settings.home == tmp_path / "toml-home"
    assert settings.namespace == "from-toml"
    assert settings.work_budget == timedelta(hours=1, minutes=30)


def test_codedesk_config_wins_over_the_local_file(
    cwd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_toml(cwd / "codedesk.toml", 'namespace = "local"\n')
    named = write_toml(tmp_path / "named.toml", 'namespace = "named"\n')
    monkeypatch.setenv("CODEDESK_CONFIG", str(named))
    assert load_settings().namespace == "named"


def test_toml_durations_may_be_numbers_of_seconds(cwd: Path) -> None:
    write_toml(cwd / "codedesk.toml", "work_budget = 90\n")
    assert load_settings().work_budget == timedelta(seconds=90)


def test_toml_home_expands_the_user_directory(cwd: Path, tmp_path: Path) -> None:
    write_toml(cwd / "codedesk.toml", 'home = "~/from-toml"\n')
    assert load_settings().home == tmp_path / "user" / "from-toml"


def test_no_toml_means_defaults(cwd: Path) -> None:
    assert load_settings().namespace == "default"


# Precedence: code > environment > toml > defaults


def test_precedence_code_over_env_over_toml_over_defaults(
    cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_toml(
        cwd / "codedesk.toml",
        'namespace = "toml"\ntask_queue = "toml"\nagent_command = "toml {task}"\n',
    )
    monkeypatch.setenv("CODEDESK_NAMESPACE", "env")
    monkeypatch.setenv("CODEDESK_TASK_QUEUE", "env")
    settings = load_settings(namespace="code")
    assert settings.namespace == "code"  # code beats env and toml
    assert settings.task_queue == "env"  # env beats toml
    assert settings.agent_command == "toml {task}"  # toml beats the default
    assert settings.clone_source == "https://github.com/{repo}.git"  # the default


def test_a_none_override_falls_through_to_the_environment(
    cwd: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # CLI options that were not given arrive as None and must not hide the environment.
    monkeypatch.setenv("CODEDESK_NAMESPACE", "env")
    monkeypatch.setenv("CODEDESK_WORK_BUDGET", "10m")
    settings = load_settings(namespace=None, work_budget=None)
    assert settings.namespace == "env"
    assert settings.work_budget == timedelta(minutes=10)


def test_env_duration_beats_toml_duration(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_toml(cwd / "codedesk.toml", 'work_budget = "1h30m"\n')
    monkeypatch.setenv("CODEDESK_WORK_BUDGET", "90s")
    assert load_settings().work_budget == timedelta(seconds=90)
    assert load_settings(work_budget="10m").work_budget == timedelta(minutes=10)


# Bad settings


@pytest.mark.parametrize(
    ("variable", "value", "setting", "hint"),
    [
        ("CODEDESK_WORK_BUDGET", "banana", "work_budget", "banana"),
        ("CODEDESK_WORK_BUDGET", "0", "work_budget", "longer than zero"),
        ("CODEDESK_WORK_BUDGET", "-5m", "work_budget", "negative"),
        ("CODEDESK_HEARTBEAT_TIMEOUT", "soon", "heartbeat_timeout", "soon"),
        ("CODEDESK_PORT", "99999", "port", "65535"),
        ("CODEDESK_PORT", "0", "port", "port"),
        ("CODEDESK_UI_PORT", "http", "ui_port", "integer"),
        ("CODEDESK_SERVER_SYNC", "off", "server_sync", "normal, full"),
        ("CODEDESK_CLONE_SOURCE", "https://github.com/acme.git", "clone_source", "{repo}"),
        ("CODEDESK_NAMESPACE", "", "namespace", "empty"),
        ("CODEDESK_NAMESPACE", "   ", "namespace", "empty"),
        ("CODEDESK_TASK_QUEUE", "", "task_queue", "empty"),
        ("CODEDESK_HOME", "", "home", "empty"),
        ("CODEDESK_SHELF", " ", "shelf", "empty"),
        ("CODEDESK_REPORT_OUTPUT_CHARS", "5", "report_output_chars", "100"),
    ],
)
def test_a_bad_variable_is_an_error_naming_setting_and_variable(
    cwd: Path,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
    setting: str,
    hint: str,
) -> None:
    message = refusal(monkeypatch, variable, value)
    assert f"'{setting}'" in message
    assert variable in message
    assert hint in message


def test_every_bad_setting_is_named_at_once(cwd: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEDESK_PORT", "99999")
    message = refusal(monkeypatch, "CODEDESK_WORK_BUDGET", "banana")
    assert "CODEDESK_PORT" in message
    assert "CODEDESK_WORK_BUDGET" in message


def test_a_bad_override_from_code_is_an_error_too(cwd: Path) -> None:
    with pytest.raises(SettingsError, match="work_budget"):
        load_settings(work_budget="banana")


def test_a_missing_codedesk_config_file_is_an_error(
    cwd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "nowhere" / "codedesk.toml"
    message = refusal(monkeypatch, "CODEDESK_CONFIG", str(missing))
    assert "CODEDESK_CONFIG" in message
    assert str(missing) in message
    assert "does not exist" in message


@pytest.mark.parametrize("where", ["named", "local"])
def test_a_toml_syntax_error_is_an_error_naming_the_file(
    cwd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    if where == "named":
        config = write_toml(tmp_path / "broken.toml", 'namespace = "unclosed\n')
        monkeypatch.setenv("CODEDESK_CONFIG", str(config))
    else:
        config = write_toml(cwd / "codedesk.toml", "work_budget = \n")
    with pytest.raises(SettingsError) as caught:
        load_settings()
    message = str(caught.value)
    assert str(config.name) in message
    assert "TOML" in message
    assert "line 1" in message


def test_a_bad_value_in_toml_names_the_setting(cwd: Path) -> None:
    write_toml(cwd / "codedesk.toml", 'clone_source = "https://example.com/fixed.git"\n')
    with pytest.raises(SettingsError) as caught:
        load_settings()
    assert "'clone_source'" in str(caught.value)
    assert "{repo}" in str(caught.value)
