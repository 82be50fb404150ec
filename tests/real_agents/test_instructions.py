"""The standing instructions reach the model of each real CLI but Claude Code's (whose test is in
test_claude_code.py): the fake's request log shows them in the system or developer prompt, and
a model that commits only when its prompt tells it to leaves the job integrated.

aider has no system prompt option: its preset gives the instructions as a read-only file of its
chat (`--read`), so its model finds them in the conversation; aider commits its edits itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from activities.sandbox.bubblewrap import BWRAP, choose_sandbox
from desk.agents.presets import preset_command
from desk.agents.standing_instructions import BUILT_IN, BUILT_IN_NAME, REQUIRED_PARTS
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome, JobReport
from surfaces.clients.desk_client import DeskClient
from tests.helpers.real_agents.other_clis import make_codex_home
from tests.helpers.repos import git
from tests.real_agents import HEARTBEAT_TIMEOUT
from tests.real_agents.agent_env import give_agent_home, on_path, opencode_config
from tests.real_agents.fake_anthropic import IfInstructed, Say, Step, ToolCall
from tests.real_agents.fake_openai import FakeOpenAI, serving
from tests.real_agents.install import agent_cache, release_cli

REPO = "acme/api"
TASK = "Add a notes file"
EDIT = "echo notes > NOTES.md && echo edited"
COMMIT = "git add NOTES.md && git commit -q -m 'Add notes' && echo ok"
TOLD_TO_COMMIT = REQUIRED_PARTS[1].sentence
"""The sentence after which the scripted model commits: without it, it ends with an edit."""

pytestmark = [
    pytest.mark.timeout(600),
    # The suite's sandbox, the product's default: bubblewrap, where it works (CI installs it).
    pytest.mark.skipif(
        choose_sandbox("auto").mode != BWRAP, reason="bubblewrap does not work on this host"
    ),
]


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    return settings.model_copy(
        update={
            # Each test's fake model on the worker's loopback, through the egress proxy.
            "sandbox_egress": ["*", "127.0.0.1"],
            "heartbeat_timeout": HEARTBEAT_TIMEOUT,
            "agent_env": [*settings.agent_env, "CODEX_HOME", "AIDER_*", "OPENCODE_*", "XDG_*"],
            "sandbox_read_paths": [*settings.sandbox_read_paths, str(agent_cache())],
        }
    )


@pytest.fixture(autouse=True)
def agent_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home and git identity of the agent's own (the worker runs in this process)."""
    give_agent_home(monkeypatch, tmp_path / "agent-home")
    return tmp_path / "agent-home"


async def run_preset(desk: DeskClient, origin: Path, preset: str) -> JobReport:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, TASK, agent_command=preset_command(preset))
    return await desk.wait(number)


def assert_told_and_integrated(report: JobReport, settings: DeskSettings, seen: str) -> None:
    """The model saw every sentence of the instructions, and the job took its commit."""
    log = Path(report.log_path).read_text() if report.log_path else ""
    for line in BUILT_IN.text.splitlines():
        assert line in seen, (line, seen[-3000:])
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert report.confinement == BWRAP, report
    assert [commit.subject for commit in report.commits] == ["Add notes"], report
    assert report.instructions is not None and report.instructions.name == BUILT_IN_NAME
    assert report.instructions.digest == BUILT_IN.digest
    assert git(settings.shelf_dir / "acme" / "api", "status", "--porcelain") == ""


def commits_when_told(call: Callable[[str], ToolCall]) -> list[Step]:
    """Edit, then commit only when the standing prompt says so, then end."""
    return [call(EDIT), IfInstructed(TOLD_TO_COMMIT, call(COMMIT)), Say("Done.")]


async def test_codex_gets_them_as_its_developer_instructions(
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, release_cli("codex"))
    fake = FakeOpenAI(steps=commits_when_told(lambda cmd: ToolCall("exec_command", {"cmd": cmd})))
    with serving(fake):
        make_codex_home(tmp_path / "codex-home", fake.url, monkeypatch)
        report = await run_preset(desk, origin, "codex")
    prompts = fake.standing_prompts()
    assert prompts, "codex asked its model nothing"
    assert_told_and_integrated(report, settings, prompts[-1])
    developer = [
        item
        for item in fake.conversation()[-1]["input"]
        if isinstance(item, dict) and item.get("role") == "developer"
    ]
    assert any(TOLD_TO_COMMIT in json.dumps(item) for item in developer), developer


def _aider_main(body: dict[str, Any]) -> bool:
    """aider's conversation; its other request asks a weak model for the commit message."""
    system = json.dumps((body.get("messages") or [{}])[0])
    return "commit message" not in system.lower()


async def test_aider_gets_them_as_a_read_only_file_of_its_chat(
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, release_cli("aider"))
    edit = "NOTES.md\n```\nnotes from the agent\n```\n"
    fake = FakeOpenAI(steps=[Say(edit)], side="Add notes", is_main=_aider_main, task=TASK)
    with serving(fake):
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
        monkeypatch.setenv("OPENAI_API_BASE", fake.url)
        monkeypatch.setenv("AIDER_MODEL", "openai/gpt-fake")
        report = await run_preset(desk, origin, "aider")
    asked = fake.conversation()
    assert asked, "aider asked its model nothing"
    # The whole chat as the model reads it: the file's text, its escapes undone.
    chat = "\n".join(str(message.get("content")) for message in asked[0].get("messages", []))
    assert_told_and_integrated(report, settings, chat)


async def test_opencode_gets_them_in_its_system_prompt(
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, release_cli("opencode"))
    steps = commits_when_told(lambda cmd: ToolCall("bash", {"command": cmd, "description": "run"}))
    fake = FakeOpenAI(steps=steps, task=TASK)
    with serving(fake):
        config = opencode_config(fake.url)
        # The owner's own configuration, which opencode merges with the preset's.
        monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", json.dumps(config))
        report = await run_preset(desk, origin, "opencode")
    prompts = fake.standing_prompts()
    assert prompts, "opencode asked its model nothing"
    assert_told_and_integrated(report, settings, prompts[-1])


@pytest.mark.parametrize("release", ["pinned", "newest"])
async def test_opencode_keeps_the_owners_config_file_and_its_instructions(
    release: str,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    gates: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The usual server set-up: `OPENCODE_CONFIG` names the owner's file with the provider and
    rules of the house. The preset leaves it in place and adds the job's instructions through
    `OPENCODE_CONFIG_CONTENT`, which opencode merges with it, instruction lists included."""
    on_path(monkeypatch, release_cli("opencode", release))
    steps = commits_when_told(lambda cmd: ToolCall("bash", {"command": cmd, "description": "run"}))
    fake = FakeOpenAI(steps=steps, task=TASK)
    house_rules = gates / "house-rules.md"  # where the sandbox may read: the tests' settings
    house_rules.write_text("HOUSE RULE: answer in plain words.\n")
    owners = gates / "opencode-server.json"
    with serving(fake):
        owners.write_text(json.dumps(opencode_config(fake.url, instructions=[str(house_rules)])))
        monkeypatch.setenv("OPENCODE_CONFIG", str(owners))
        report = await run_preset(desk, origin, "opencode")
    prompts = fake.standing_prompts()
    assert prompts, "opencode asked its model nothing"
    assert "HOUSE RULE: answer in plain words." in prompts[-1], prompts[-1][-3000:]
    assert_told_and_integrated(report, settings, prompts[-1])
