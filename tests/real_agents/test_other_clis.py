"""The codex, aider and opencode presets with their real CLIs, each against a scripted fake of
its model API on 127.0.0.1: the job ends integrated with the agent's commit and a clean tree,
and a task that starts with '-' reaches the model as text."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desk.agents import preset_command
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome, JobReport
from surfaces.clients.desk import DeskClient
from tests.helpers.repos import git, make_origin
from tests.real_agents import HEARTBEAT_TIMEOUT
from tests.real_agents.fake_anthropic import Say, ToolCall
from tests.real_agents.fake_openai import FakeOpenAI, serving
from tests.real_agents.install import agent_cache, npm_cli, pip_cli

REPO = "acme/api"
TASK = "-v add a notes file"
COMMIT = "echo notes > NOTES.md && git add NOTES.md && git commit -q -m 'Add notes' && echo ok"

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.unconfined(
        "issue 27: these presets are not yet proven in the sandbox (their fake model on "
        "127.0.0.1 is refused by the egress proxy, codex's own sandbox is off)"
    ),
]


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    # codex's preset turns its own sandbox off; these tests are about the CLI, not the guard.
    return settings.model_copy(
        update={
            "unconfined_guards_off": True,
            "heartbeat_timeout": HEARTBEAT_TIMEOUT,
            "agent_env": [*settings.agent_env, "CODEX_HOME", "AIDER_*", "OPENCODE_*", "XDG_*"],
            "sandbox_read_paths": [*settings.sandbox_read_paths, str(agent_cache())],
        }
    )


@pytest.fixture
def agent_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """Set variables of the agent's environment (the worker runs in this process)."""
    home = tmp_path / "agent-home"
    home.mkdir()
    values = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_STATE_HOME": str(home / "state"),
        "GIT_AUTHOR_NAME": "Agent",
        "GIT_AUTHOR_EMAIL": "agent@codedesk.invalid",
        "GIT_COMMITTER_NAME": "Agent",
        "GIT_COMMITTER_EMAIL": "agent@codedesk.invalid",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    yield values


def on_path(monkeypatch: pytest.MonkeyPatch, program: Path) -> None:
    monkeypatch.setenv("PATH", f"{program.parent}{os.pathsep}{os.environ['PATH']}")


async def run_preset(desk: DeskClient, origin: Path, preset: str, fake: FakeOpenAI) -> JobReport:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, TASK, agent_command=preset_command(preset))
    return await desk.wait(number)


def assert_integrated(report: JobReport, settings: DeskSettings, fake: FakeOpenAI) -> None:
    log = Path(report.log_path).read_text() if report.log_path else ""
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert [commit.subject for commit in report.commits] == ["Add notes"], report
    clone = settings.shelf_dir / "acme" / "api"
    assert (clone / "NOTES.md").read_text().strip() == "notes from the agent" or (
        clone / "NOTES.md"
    ).read_text().strip() == "notes"
    assert git(clone, "status", "--porcelain") == ""
    assert report.uncommitted == []
    asked = json.dumps(fake.conversation()[0])
    assert TASK in asked, asked[-2000:]


async def test_codex(
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, npm_cli("codex", "@openai/codex@0.171", "codex"))
    fake = FakeOpenAI(steps=[ToolCall("exec_command", {"cmd": COMMIT}), Say("Committed it.")])
    with serving(fake):
        codex_home = tmp_path / "codex-home"
        codex_home.mkdir()
        (codex_home / "config.toml").write_text(
            'model = "gpt-fake"\nmodel_provider = "fake"\n\n[model_providers.fake]\n'
            f'name = "fake"\nbase_url = "{fake.url}"\nwire_api = "responses"\n'
            'env_key = "OPENAI_API_KEY"\n'
        )
        monkeypatch.setenv("CODEX_HOME", str(codex_home))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
        report = await run_preset(desk, origin, "codex", fake)
    assert_integrated(report, settings, fake)
    assert "Process exited with code 0" in fake.tool_results()[0]
    assert report.output.strip().endswith("Committed it."), report.output


def _aider_main(body: dict[str, Any]) -> bool:
    """aider's conversation; its other request asks a weak model for the commit message."""
    system = json.dumps((body.get("messages") or [{}])[0])
    return "commit message" not in system.lower()


async def test_aider(
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, pip_cli("aider", "aider-chat==0.86.2", "aider"))
    edit = "NOTES.md\n```\nnotes from the agent\n```\n"
    fake = FakeOpenAI(steps=[Say(edit)], side="Add notes", is_main=_aider_main, task=TASK)
    with serving(fake):
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
        monkeypatch.setenv("OPENAI_API_BASE", fake.url)
        monkeypatch.setenv("AIDER_MODEL", "openai/gpt-fake")
        report = await run_preset(desk, origin, "aider", fake)
    assert_integrated(report, settings, fake)
    sides = [body for _, body in fake.requests if not _aider_main(body)]
    assert sides, "aider asked no model for the commit message"


async def test_opencode(
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, npm_cli("opencode", "opencode-ai@1.18", "opencode"))
    # opencode works in $PWD: the worker's own is another repository, which must stay as it is.
    decoy = make_origin(tmp_path / "decoy.git").parent / "decoy.git-seed"
    before = git(decoy, "rev-parse", "HEAD")
    monkeypatch.setenv("PWD", str(decoy))
    steps = [ToolCall("bash", {"command": COMMIT, "description": "commit"}), Say("Committed it.")]
    fake = FakeOpenAI(steps=steps, task=TASK)
    with serving(fake):
        model = {"name": "gpt-fake", "tool_call": True}
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Fake",
            "options": {"baseURL": fake.url, "apiKey": "sk-test-not-a-key"},
            "models": {"gpt-fake": model},
        }
        config = {
            "provider": {"fake": provider},
            "model": "fake/gpt-fake",
            "small_model": "fake/gpt-fake",
            "autoupdate": False,
            "share": "disabled",
        }
        monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", json.dumps(config))
        report = await run_preset(desk, origin, "opencode", fake)
    assert_integrated(report, settings, fake)
    titles = [body for _, body in fake.requests if not body.get("tools")]
    assert titles, "opencode asked for no title"
    assert fake.tool_results() == ["ok\n"]
    assert git(decoy, "rev-parse", "HEAD") == before
