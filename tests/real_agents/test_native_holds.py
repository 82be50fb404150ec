"""Holds through each agent CLI's own hook, with the real CLIs and their scripted models.

For codex (its PreToolUse hook) and opencode (codedesk's plugin), the scripted model asks for
`git push origin HEAD:main` and for `rm -rf` of a file outside the worktree: each call opens a
card (an `Approval` workflow); a decline leaves the origin and the file as they were and the
model reads the refusal as the tool's result; an approval runs the `rm` once in the sandbox and
hands the push to codedesk, which ships the integrated SHA once an owner approves it. aider has
no hook: its test proves that with `--yes-always` it runs neither call (the guide's preset table:
how holds work for it).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from activities.agent.setup.opencode_plugin import config_content, owner_config
from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, HoldVerdict, Principal
from desk.payloads.jobs import JobReport
from desk.payloads.ship_payloads import PushStatus
from surfaces.clients.approval_client import ApprovalsClient, ApprovalState
from surfaces.clients.desk_client import DeskClient
from tests.helpers.repos import git
from tests.helpers.waiting import eventually
from tests.real_agents import HEARTBEAT_TIMEOUT
from tests.real_agents.agent_env import give_agent_home, opencode_config
from tests.real_agents.fake_anthropic import Say, Step, ToolCall
from tests.real_agents.fake_openai import FakeOpenAI, serving
from tests.real_agents.install import agent_cache, release_cli
from workflows.shipping.ship import Ship

REPO = "acme/api"
PUSH = "git push origin HEAD:main"
COMMIT = "echo notes > NOTES.md && git add NOTES.md && git commit -q -m 'Add notes'"

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    return settings.model_copy(
        update={
            # Long enough to answer on a busy machine; nobody waits it out here.
            "hold_wait": timedelta(seconds=60),
            "heartbeat_timeout": HEARTBEAT_TIMEOUT,
            "agent_env": [*settings.agent_env, "CODEX_HOME", "AIDER_*", "OPENCODE_*", "XDG_*"],
            "sandbox_read_paths": [*settings.sandbox_read_paths, str(agent_cache())],
            # The fake model on the worker's loopback, through the egress proxy.
            "sandbox_egress": ["*", "127.0.0.1"],
        }
    )


@pytest.fixture
def agent_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's own home and git identity (the worker runs in this process)."""
    # The installed CLIs stay where they are, whatever HOME says from now on.
    monkeypatch.setenv("CODEDESK_AGENT_CACHE", str(agent_cache()))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    give_agent_home(monkeypatch, tmp_path / "agent-home")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file outside every worktree that the model asks to remove."""
    path = tmp_path / "outside" / "keep.txt"
    path.parent.mkdir()
    path.write_text("keep me\n")
    return path


@dataclass(frozen=True)
class Cli:
    """How one CLI is set up against its fake model, and how its model calls the shell."""

    preset: str
    shell: Callable[[str], ToolCall]
    configure: Callable[[FakeOpenAI, Path, pytest.MonkeyPatch], None]
    remove: str = "rm -rf"
    """How the approved call removes the file: codex 0.171 refuses `rm -f` forms itself, even
    once codedesk has approved them ("rm -f style commands are not permitted")."""


def _codex(fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{_codex_binary().parent}{os.pathsep}{os.environ['PATH']}")
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(
        'model = "gpt-fake"\nmodel_provider = "fake"\n\n[model_providers.fake]\n'
        f'name = "fake"\nbase_url = "{fake.url}"\nwire_api = "responses"\n'
        'env_key = "OPENAI_API_KEY"\n'
    )
    monkeypatch.setenv("CODEX_HOME", str(home))


def _codex_binary() -> Path:
    return release_cli("codex")


def _opencode(fake: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    binary = release_cli("opencode")
    monkeypatch.setenv("PATH", f"{binary.parent}{os.pathsep}{os.environ['PATH']}")
    # The owner's own rules let every command run, anywhere (opencode's `run` refuses a path
    # outside the project by itself otherwise): only codedesk's hold stands between the model
    # and the origin or the file.
    permission = {"bash": "allow", "external_directory": "allow"}
    config = opencode_config(fake.url, permission=permission)
    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", json.dumps(config))


CODEX = Cli(
    "codex", lambda command: ToolCall("exec_command", {"cmd": command}), _codex, remove="rm -r"
)
OPENCODE = Cli(
    "opencode",
    lambda command: ToolCall("bash", {"command": command, "description": "run it"}),
    _opencode,
)


@dataclass
class Ran:
    """A finished job, the approvals it opened, and what its model was told."""

    report: JobReport
    approvals: list[ApprovalState]
    fake: FakeOpenAI


async def run_job(
    cli: Cli,
    steps: list[Step],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    decide: Callable[[ApprovalState], Decision],
) -> Ran:
    """Run `cli`'s preset on the script; answer each approval it opens with `decide`."""
    fake = FakeOpenAI(steps=steps, task="Push and tidy")
    with serving(fake):
        cli.configure(fake, tmp_path, monkeypatch)
        await desk.add_repo(REPO, str(origin))
        command = preset_command(cli.preset)
        number = await desk.start_job(REPO, "Push and tidy", agent_command=command)
        approvals = ApprovalsClient(desk.client)
        seen: dict[str, ApprovalState] = {}
        waiting = asyncio.create_task(desk.wait(number))
        while not waiting.done():
            for state in await approvals.open_approvals():
                if state.approval_id not in seen:
                    seen[state.approval_id] = state
                    principal = Principal(id=settings.owner)
                    await approvals.answer(state.approval_id, decide(state), principal)
            await asyncio.wait({waiting}, timeout=0.2)
    return Ran(waiting.result(), list(seen.values()), fake)


def asks_about(state: ApprovalState, text: str) -> bool:
    return text in json.dumps(state.request.model_dump(mode="json"))


def main_of(origin: Path) -> str:
    return git(origin, "rev-parse", "refs/heads/main")


def log_of(ran: Ran) -> str:
    return Path(ran.report.log_path).read_text() if ran.report.log_path else ""


async def _declined(
    cli: Cli,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    outside: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = main_of(origin)
    steps: list[Step] = [cli.shell(PUSH), cli.shell(f"rm -rf {outside}"), Say("Both refused.")]
    ran = await run_job(
        cli, steps, desk, settings, origin, tmp_path, monkeypatch, lambda _: Decision.DECLINE
    )
    assert [asks_about(s, PUSH) for s in ran.approvals] == [True, False], (ran, log_of(ran))
    assert asks_about(ran.approvals[1], str(outside)), ran.approvals
    assert main_of(origin) == before
    assert outside.read_text() == "keep me\n"
    results = ran.fake.tool_results()
    assert len(results) == 2 and all("declined" in r.lower() for r in results), results
    verdicts = [call.verdict for call in ran.report.held_calls]
    assert verdicts == [HoldVerdict.DECLINED, HoldVerdict.DECLINED], ran.report


async def _approved(
    cli: Cli,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    outside: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In the sandbox, as users run it: the approved `rm -rf` runs once, where the sandbox
    shows the agent no file outside its worktree; the approved push to main is not run in the
    sandbox (it cannot reach the origin) but shipped by codedesk (issue 33): the model is told
    so, and once the job integrates, the push of its integrated SHA waits for an owner."""
    before = main_of(origin)
    steps: list[Step] = [
        cli.shell(COMMIT),
        cli.shell(PUSH),
        cli.shell(f"{cli.remove} {outside}"),
        Say("Pushed and tidied."),
    ]
    ran = await run_job(
        cli, steps, desk, settings, origin, tmp_path, monkeypatch, lambda _: Decision.APPROVE
    )
    report = ran.report
    assert report.confinement == "bwrap", report
    assert [asks_about(s, PUSH) for s in ran.approvals][:2] == [True, False], (ran, log_of(ran))
    assert outside.read_text() == "keep me\n", "the sandbox hides the host's file"
    results = ran.fake.tool_results()
    assert len(results) == 3, results
    assert "codedesk will ask to push your commits to main" in results[1], results
    assert "declined" not in results[2].lower(), results
    # Each approved call was answered once, and the model's script went on.
    assert report.output.strip().endswith("Pushed and tidied."), report.output
    [shipped] = report.ship_requests
    assert shipped.sha == report.head, shipped
    approvals = ApprovalsClient(desk.client)
    [push] = await eventually(
        approvals.open_approvals,
        lambda states: [s for s in states if s.approval_id == shipped.push_approval_id],
        "the push of the integrated SHA to ask for an owner",
    )
    assert push.request.input["sha"] == report.head, push
    await approvals.answer(push.approval_id, Decision.APPROVE, Principal(id=settings.owner))
    ship = desk.client.get_workflow_handle_for(Ship.run, shipped.push_workflow_id)
    assert (await ship.result()).status == PushStatus.PUSHED
    assert main_of(origin) == report.head
    assert git(origin, "rev-list", "--count", f"{before}..main") == "1"


@pytest.mark.parametrize("cli", [CODEX, OPENCODE], ids=["codex", "opencode"])
async def test_a_push_and_an_rm_outside_wait_for_a_card_and_a_decline_keeps_both(
    cli: Cli,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    outside: Path,
    tmp_path: Path,
    agent_env: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await _declined(cli, desk, settings, origin, outside, tmp_path, monkeypatch)


@pytest.mark.parametrize("cli", [CODEX, OPENCODE], ids=["codex", "opencode"])
async def test_an_approved_push_is_shipped_and_an_approved_rm_runs_once(
    cli: Cli,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    outside: Path,
    tmp_path: Path,
    agent_env: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await _approved(cli, desk, settings, origin, outside, tmp_path, monkeypatch)


def _aider_main(body: dict[str, Any]) -> bool:
    """aider's conversation; its other request asks a weak model for the commit message."""
    return "commit message" not in json.dumps((body.get("messages") or [{}])[0]).lower()


@pytest.mark.unconfined(
    "aider has no hook: what it can do unasked is proven where nothing else stops it"
)
async def test_aider_runs_neither_a_proposed_push_nor_an_rm_so_nothing_waits_for_a_person(
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    outside: Path,
    tmp_path: Path,
    agent_env: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    binary = release_cli("aider")
    monkeypatch.setenv("PATH", f"{binary.parent}{os.pathsep}{os.environ['PATH']}")
    before = main_of(origin)
    # aider's diff format lets the model propose shell commands in a fenced block; with
    # --yes-always aider answers "no" to running them (they need an explicit yes).
    proposal = f"I will run these.\n\n```bash\n{PUSH}\nrm -rf {outside}\n```\n"
    fake = FakeOpenAI(steps=[Say(proposal)], side="Tidy", is_main=_aider_main, task="Tidy")
    with serving(fake):
        monkeypatch.setenv("OPENAI_API_BASE", fake.url)
        monkeypatch.setenv("AIDER_MODEL", "openai/gpt-fake")
        monkeypatch.setenv("AIDER_EDIT_FORMAT", "diff")
        await desk.add_repo(REPO, str(origin))
        number = await desk.start_job(REPO, "Tidy", agent_command=preset_command("aider"))
        report = await desk.wait(number)
    log = Path(report.log_path).read_text() if report.log_path else ""
    assert "Run shell command" in log or PUSH in log, log  # aider read the proposal
    assert main_of(origin) == before, log
    assert outside.read_text() == "keep me\n"
    assert await ApprovalsClient(desk.client).open_approvals() == []
    assert report.held_calls == [], report


async def test_opencode_without_codedesks_plugin_has_no_shell_or_edit_tools(
    tmp_path: Path, agent_env: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """opencode skips a plugin it cannot load without a word: codedesk's deny stays, so the
    model is told the tool is unavailable and nothing runs unheld."""
    marker = tmp_path / "ran.txt"
    steps: list[Step] = [OPENCODE.shell(f"touch {marker}"), Say("No shell.")]
    fake = FakeOpenAI(steps=steps, task="Touch it")
    with serving(fake):
        OPENCODE.configure(fake, tmp_path, monkeypatch)
        owner = owner_config(os.environ["OPENCODE_CONFIG_CONTENT"])
        broken = tmp_path / "plugin" / "codedesk-hold-plugin.js"
        broken.parent.mkdir()
        broken.write_text("this is not javascript (\n")
        env = {**os.environ, "OPENCODE_CONFIG_CONTENT": config_content(broken, owner)}
        done = await asyncio.to_thread(
            subprocess.run,
            ["opencode", "run", "--", "Touch it"],
            cwd=git_repository(tmp_path / "repo"),
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
    assert not marker.exists(), done
    [result] = fake.tool_results()
    assert "unavailable tool 'bash'" in result, (result, done)


def git_repository(path: Path) -> Path:
    path.mkdir()
    git(path, "init", "-q")
    git(path, "commit", "-q", "--allow-empty", "-m", "init")
    return path
