"""A misspelt setting is named, with the nearest setting, on every command and in doctor."""

from __future__ import annotations

import json
import re
from pathlib import Path

from desk.config.basics.setting_names import (
    NOT_FOUND,
    OUR_VARIABLES,
    SETTING_NAMES,
    unknown_settings,
)
from desk.config.settings import DeskSettings
from surfaces.clients.desk_client import DeskClient
from tests.helpers.cli_helpers import cli_env, run_cli, settings_env, shown

TOP = Path(__file__).resolve().parents[2]
MISSPELT = {"CODEDESK_NO_SUCH_SETTING", "CODEDESK_MAX_WORKRS", "CODEDESK_ZQXJ"}
"""Names the tests spell wrong on purpose."""


def test_the_names_are_the_settings_fields() -> None:
    assert set(DeskSettings.model_fields) == SETTING_NAMES, (
        "a setting was added or removed: say so in SETTING_NAMES "
        "(desk/config/basics/setting_names.py)"
    )


def test_every_codedesk_variable_the_code_names_is_a_setting_or_ours() -> None:
    """A variable read with os.environ (the agent's, the tests', the compose file's) must be
    in OUR_VARIABLES, or every command would warn about it."""
    files = [
        path
        for pattern in ("*.py", "*.yml", "Makefile", "Dockerfile")
        for path in TOP.rglob(pattern)
        if not {".venv", ".git", "build"} & set(path.relative_to(TOP).parts)
    ]
    named = {
        name
        for path in files
        for name in re.findall(r"CODEDESK_[A-Z0-9_]*[A-Z0-9]", path.read_text(errors="replace"))
    }
    settings = {f"CODEDESK_{name.upper()}" for name in SETTING_NAMES}
    assert named - settings - OUR_VARIABLES - MISSPELT == set(), (
        "a CODEDESK_* variable that is no setting: add it to OUR_VARIABLES "
        "(desk/config/basics/setting_names.py)"
    )


def test_a_misspelt_variable_is_named_with_the_nearest_setting() -> None:
    environ = {
        "CODEDESK_MAX_WORKRS": "3",
        "CODEDESK_HOME": "/tmp/x",
        "codedesk_namespace": "read in any case",
        "CODEDESK_JOB": "4",
        "CODEDESK_CONFIG": "/tmp/c.toml",
        "CODEDESK_ZQXJ": "1",
        "PATH": "/bin",
    }
    assert unknown_settings(environ, None) == [
        "CODEDESK_MAX_WORKRS is not a codedesk setting and is ignored: did you mean "
        "CODEDESK_MAX_WORKERS?",
        f"CODEDESK_ZQXJ is not a codedesk setting and is ignored: {NOT_FOUND}.",
    ]


def test_a_misspelt_toml_key_is_named_with_the_nearest_setting(tmp_path: Path) -> None:
    toml = tmp_path / "codedesk.toml"
    toml.write_text('work_budgt = "30m"\nWork_Budget = "1h"\nowners = "local:alice"\n')
    assert unknown_settings({}, toml) == [
        f"'work_budgt' in {toml} is not a codedesk setting and is ignored: did you mean "
        "'work_budget'?"
    ]
    toml.write_text("not = [toml")
    assert unknown_settings({}, toml) == []  # loading the settings says what is wrong


async def test_every_command_warns_and_doctor_says_it(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    (tmp_path / "codedesk.toml").write_text('work_budgt = "30m"\n')
    env = settings_env(settings, CODEDESK_MAX_WORKRS="3", CODEDESK_ATTEMPT="1")
    wanted = (
        "warning: CODEDESK_MAX_WORKRS is not a codedesk setting and is ignored: did you mean "
        "CODEDESK_MAX_WORKERS?\n",
        "warning: 'work_budgt' in codedesk.toml is not a codedesk setting and is ignored: did "
        "you mean 'work_budget'?\n",
    )
    # A listing (settings read without pydantic) and a command that reads them all.
    for command in (["jobs"], ["show", "1"], ["mode"]):
        done = await run_cli(env, *command, cwd=tmp_path)
        assert done.returncode in (0, 1), shown(done)
        assert all(done.stderr.count(line) == 1 for line in wanted), shown(done)

    home = tmp_path / "no-server"
    alone = cli_env(CODEDESK_HOME=str(home), CODEDESK_MAX_WORKRS="3")
    doctor = await run_cli(alone, "doctor", "--json", cwd=tmp_path)
    checks = {check["name"]: check for check in json.loads(doctor.stdout)}
    names = checks["setting names"]
    assert names["status"] == "warn", names
    assert "did you mean CODEDESK_MAX_WORKERS?" in names["detail"]
    assert "did you mean 'work_budget'?" in names["detail"]

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    clean = await run_cli(cli_env(CODEDESK_HOME=str(home)), "doctor", "--json", cwd=elsewhere)
    assert {c["name"]: c for c in json.loads(clean.stdout)}["setting names"]["status"] == "ok"
    assert "warning:" not in clean.stderr, shown(clean)
