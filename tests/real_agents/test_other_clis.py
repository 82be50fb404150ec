"""The codex, aider and opencode presets with their real CLIs, in the product's default sandbox,
each against a scripted fake of its model API on 127.0.0.1: the job ends integrated with the
agent's commit and a clean tree, and a task that starts with '-' reaches the model as text.

Each CLI runs as its owner configures it (codex's `config.toml` in `CODEX_HOME`, opencode's
configuration in the environment, aider's variables), which the job's own home is seeded
from, and reaches its model through the egress proxy, which lets it through only because the
settings name the fake's own port. Each runs in the version its preset was proven with and in
the registry's newest (`-k newest`): a newest release that fails names what changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from activities.sandbox.bubblewrap import BWRAP, choose_sandbox
from desk.agents.presets import AGENT_PRESETS, preset_command
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome, JobReport
from surfaces.clients.desk_client import DeskClient
from tests.helpers.real_agents.other_clis import RELEASES, REPO, make_codex_home
from tests.helpers.real_agents.other_clis import agent_env as agent_env
from tests.helpers.real_agents.other_clis import fake as fake
from tests.helpers.real_agents.other_clis import settings as settings
from tests.helpers.repos import git, make_origin
from tests.real_agents.agent_env import on_path, opencode_config
from tests.real_agents.fake_anthropic import Say, ToolCall
from tests.real_agents.fake_openai import FakeOpenAI
from tests.real_agents.install import release_cli

TASK = "-v add a notes file"
COMMIT = "echo notes > NOTES.md && git add NOTES.md && git commit -q -m 'Add notes' && echo ok"

pytestmark = [
    pytest.mark.timeout(600),
    # The suite's sandbox, the product's default: bubblewrap, where it works (CI installs it).
    pytest.mark.skipif(
        choose_sandbox("auto").mode != BWRAP, reason="bubblewrap does not work on this host"
    ),
]


def assert_proven(release: str, name: str, report: JobReport) -> None:
    """A newest release that fails says which version did, against the proven one."""
    if release == "newest" and report.outcome != JobOutcome.INTEGRATED:
        log = Path(report.log_path).read_text()[-3000:] if report.log_path else ""
        pytest.fail(
            f"{name}'s newest release fails where {AGENT_PRESETS[name].proven_version} works: "
            f"update the preset or its proven version ({report.outcome}: {report.reason})\n{log}"
        )


async def run_preset(desk: DeskClient, origin: Path, preset: str, fake: FakeOpenAI) -> JobReport:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, TASK, agent_command=preset_command(preset))
    return await desk.wait(number)


def assert_integrated(report: JobReport, settings: DeskSettings, fake: FakeOpenAI) -> None:
    log = Path(report.log_path).read_text() if report.log_path else ""
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert report.confinement == BWRAP, report
    assert [commit.subject for commit in report.commits] == ["Add notes"], report
    clone = settings.shelf_dir / "acme" / "api"
    assert (clone / "NOTES.md").read_text().strip() == "notes from the agent" or (
        clone / "NOTES.md"
    ).read_text().strip() == "notes"
    assert git(clone, "status", "--porcelain") == ""
    assert report.uncommitted == []
    asked = json.dumps(fake.conversation()[0])
    assert TASK in asked, asked[-2000:]


@pytest.mark.parametrize("release", RELEASES)
async def test_codex(
    release: str,
    fake: FakeOpenAI,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, release_cli("codex", release))
    fake.steps = [ToolCall("exec_command", {"cmd": COMMIT}), Say("Committed it.")]
    # The owner's codex folder, as codex keeps it: the job's home is seeded from its
    # config.toml, never from its login (auth.json); the key comes from the environment.
    codex_home = make_codex_home(tmp_path / "codex-home", fake.url, monkeypatch)
    (codex_home / "auth.json").write_text('{"OPENAI_API_KEY": "sk-owner-login-not-for-agents"}')
    report = await run_preset(desk, origin, "codex", fake)
    assert_proven(release, "codex", report)
    assert_integrated(report, settings, fake)
    assert sorted(p.name for p in codex_home.iterdir()) == ["auth.json", "config.toml"]
    assert "Process exited with code 0" in fake.tool_results()[0]
    # The report's output is codex's final message, and the log reads as words (`--json`).
    assert report.output == "Committed it.", report.output
    log = Path(report.log_path).read_text() if report.log_path else ""
    assert f"$ {COMMIT}\n← exit 0: ok\n" in log, log
    assert "codex: finished the turn" in log and '"type"' not in log, log
    used = fake.used
    assert report.usage is not None, report
    assert report.usage.input_tokens == used["input_tokens"] - used["cached_tokens"], report
    assert report.usage.cached_tokens == used["cached_tokens"] > 0, (report.usage, used)
    assert report.usage.output_tokens == used["output_tokens"], (report.usage, used)
    assert report.usage.model is None and report.usage.cost is None, report.usage


def _aider_main(body: dict[str, Any]) -> bool:
    """aider's conversation; its other request asks a weak model for the commit message."""
    system = json.dumps((body.get("messages") or [{}])[0])
    return "commit message" not in system.lower()


@pytest.mark.parametrize("release", RELEASES)
async def test_aider(
    release: str,
    fake: FakeOpenAI,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, release_cli("aider", release))
    edit = "NOTES.md\n```\nnotes from the agent\n```\n"
    fake.steps, fake.side, fake.is_main, fake.task = [Say(edit)], "Add notes", _aider_main, TASK
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    monkeypatch.setenv("OPENAI_API_BASE", fake.url)
    monkeypatch.setenv("AIDER_MODEL", "openai/gpt-fake")
    report = await run_preset(desk, origin, "aider", fake)
    assert_proven(release, "aider", report)
    assert_integrated(report, settings, fake)
    sides = [body for _, body in fake.requests if not _aider_main(body)]
    assert sides, "aider asked no model for the commit message"


@pytest.mark.parametrize("release", RELEASES)
async def test_opencode(
    release: str,
    fake: FakeOpenAI,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, release_cli("opencode", release))
    # opencode works in $PWD: the worker's own is another repository, which must stay as it is.
    decoy = make_origin(tmp_path / "decoy.git").parent / "decoy.git-seed"
    before = git(decoy, "rev-parse", "HEAD")
    monkeypatch.setenv("PWD", str(decoy))
    steps = [ToolCall("bash", {"command": COMMIT, "description": "commit"}), Say("Committed it.")]
    fake.steps, fake.task = steps, TASK
    config = opencode_config(fake.url)
    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", json.dumps(config))
    report = await run_preset(desk, origin, "opencode", fake)
    assert_proven(release, "opencode", report)
    assert_integrated(report, settings, fake)
    titles = [body for _, body in fake.requests if not body.get("tools")]
    assert titles, "opencode asked for no title"
    assert fake.tool_results() == ["ok\n"]
    assert git(decoy, "rev-parse", "HEAD") == before
