"""Where each preset's command asks for the hold hook, the job gets it wired in its CLI's way."""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path

import pytest

from activities.agent.setup.hold_wiring import wire_holds
from activities.agent.setup.opencode_plugin import PLUGIN_FILE
from desk.agents.presets import PRESETS
from desk.config.settings import DeskSettings, load_settings


@pytest.fixture
def settings(tmp_path: Path) -> DeskSettings:
    return load_settings(home=tmp_path / "home", hold_wait="1m", hook_timeout="2m")


def argv(preset: str) -> list[str]:
    return shlex.split(PRESETS[preset].replace("{task}", "the task"))


def test_codex_gets_its_hook_override_inline(settings: DeskSettings, tmp_path: Path) -> None:
    wired = wire_holds(argv("codex"), tmp_path / "job", settings)
    override = wired.argv[wired.argv.index("-c") + 1]
    [entry] = tomllib.loads(f"x = {override.partition('=')[2]}")["x"]
    assert "--format codex" in entry["hooks"][0]["command"]
    assert entry["hooks"][0]["timeout"] == 120
    assert "--dangerously-bypass-hook-trust" in wired.argv and wired.hook_file is None
    assert not (tmp_path / "job").exists()


def test_claude_gets_its_settings_file(settings: DeskSettings, tmp_path: Path) -> None:
    wired = wire_holds(argv("claude"), tmp_path / "job", settings)
    assert wired.hook_file is not None and wired.hook_file.parent == tmp_path / "job"
    assert str(wired.hook_file) in wired.argv


def test_any_opencode_command_gets_the_plugin_over_the_owners_config(
    settings: DeskSettings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    owner = {"model": "fake/m", "permission": {"bash": "ask"}}
    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", json.dumps(owner))
    given = ["/opt/bin/opencode", "run", "--model", "x", "--", "the task"]
    # The owner's variable reaches the agent only where agent_env names it.
    passed = settings.model_copy(update={"agent_env": [*settings.agent_env, "OPENCODE_*"]})
    wired = wire_holds(given, tmp_path / "job", passed)
    assert wired.argv == given
    assert wired.hook_file == tmp_path / "job" / PLUGIN_FILE == wired.opencode_plugin
    env = {"OPENCODE_CONFIG_CONTENT": json.dumps(owner)}
    wired.complete(env)
    config = json.loads(env["OPENCODE_CONFIG_CONTENT"])
    assert config["model"] == "fake/m" and config["plugin"] == [wired.hook_file.as_uri()]
    assert config["permission"] == {"bash": "deny", "edit": "deny"}
    assert '"bash": "ask"' in wired.hook_file.read_text()  # the owner's rule, given back


def test_other_commands_are_left_as_they_are(settings: DeskSettings, tmp_path: Path) -> None:
    for given in (argv("aider"), ["./my-agent.sh", "go"]):
        wired = wire_holds(given, tmp_path / "job", settings)
        assert (wired.argv, wired.hook_file) == (given, None)
