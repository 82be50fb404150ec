"""Several attempts with three real CLIs (issue 48): Claude Code, codex and opencode at one task,
each in bubblewrap in its own worktree, each against a scripted fake of its model API on
127.0.0.1, each writing a different file; the comparison lists the three with their checks, and
`pick` integrates exactly the picked attempt's commit while the others leave no branch.

Each of the three at the version its preset was proven with, and at the newest on the registry.
One desk slot: the attempts run one after another (each lends its slot once its work waits for
the pick), so each CLI's fake model hears only its own conversation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from activities.sandbox.bubblewrap import BWRAP, choose_sandbox
from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.payloads.conversation.attempt_payloads import AttemptState, attempt_specs
from desk.payloads.jobs import JobOutcome, JobPhase
from desk.records.repo_setup import CheckStatus, SetRepoSetup
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from tests.helpers.job_waits import status_until
from tests.helpers.real_agents.claude_code import REPO, talking_settings
from tests.helpers.real_agents.claude_code import claude_binary as claude_binary
from tests.helpers.real_agents.claude_code import claude_env as claude_env
from tests.helpers.real_agents.other_clis import make_codex_home
from tests.helpers.repos import git
from tests.helpers.waiting import awaited
from tests.real_agents.agent_env import give_agent_home, on_path, opencode_config
from tests.real_agents.fake_anthropic import FakeAnthropic, Say, ToolCall, bash
from tests.real_agents.fake_openai import FakeOpenAI, serving
from tests.real_agents.install import release_cli

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(
        choose_sandbox("auto").mode != BWRAP, reason="bubblewrap does not work on this host"
    ),
]
TASK = "add a notes file"


def commit(name: str) -> str:
    return f"echo {name} > {name} && git add {name} && git commit -q -m 'Add {name}' && echo ok"


@pytest.fixture
def openai_fakes() -> Iterator[tuple[FakeOpenAI, FakeOpenAI]]:
    """codex's model and opencode's, each with its own script."""
    with serving(FakeOpenAI(steps=[])) as codex, serving(FakeOpenAI(steps=[])) as opencode:
        yield codex, opencode


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    return talking_settings(settings).model_copy(
        update={
            "max_workers": 1,
            "agent_env": [*talking_settings(settings).agent_env, "OPENCODE_*"],
        }
    )


@pytest.mark.parametrize(
    ("claude_binary", "release"),
    [("pinned", "pinned"), ("newest", "newest")],
    indirect=["claude_binary"],
)
async def test_claude_codex_and_opencode_are_compared_and_the_pick_lands_alone(
    release: str,
    claude_env: Callable[..., FakeAnthropic],
    openai_fakes: tuple[FakeOpenAI, FakeOpenAI],
    desk: DeskClient,
    origin: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    claude = claude_env([bash(commit("A.md")), Say("Added A.md.")])
    codex_fake, opencode_fake = openai_fakes
    give_agent_home(monkeypatch, tmp_path / "agent-home")
    # codex: its owner's config.toml names the fake; the key comes from the environment.
    on_path(monkeypatch, release_cli("codex", release, alone=False))
    codex_fake.steps = [ToolCall("exec_command", {"cmd": commit("B.md")}), Say("Added B.md.")]
    make_codex_home(tmp_path / "codex-home", codex_fake.url, monkeypatch)
    # opencode: its configuration in the environment names the other fake.
    opencode = release_cli("opencode", release, alone=False)
    on_path(monkeypatch, opencode)
    opencode_fake.steps = [
        ToolCall("bash", {"command": commit("C.md"), "description": "commit"}),
        Say("Added C.md."),
    ]
    opencode_fake.task = TASK
    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", json.dumps(opencode_config(opencode_fake.url)))

    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    await RepoSetupClient(desk.client, desk.settings).configure(
        SetRepoSetup(repo=REPO, check="test ! -f C.md", check_retries=0)
    )
    head = git(clone, "rev-parse", "HEAD")
    specs = attempt_specs(
        [(name, preset_command(name)) for name in ("claude", "codex", "opencode")]
    )
    number = (await desk.submit_job(REPO, TASK, attempts=specs)).number

    seen = await status_until(
        desk, number, lambda now: now.phase == JobPhase.REVIEW, f"job {number}'s comparison"
    )
    assert seen.attempts is not None
    rows = seen.attempts.rows
    assert [(row.label, row.agent) for row in rows] == [
        ("a", "claude"),
        ("b", "codex"),
        ("c", "opencode"),
    ]
    assert [row.state for row in rows] == [AttemptState.READY] * 3, rows
    assert [row.check for row in rows] == [
        CheckStatus.PASSED,
        CheckStatus.PASSED,
        CheckStatus.FAILED,
    ]
    assert [row.commits for row in rows] == [["Add A.md"], ["Add B.md"], ["Add C.md"]]
    assert git(clone, "rev-parse", "HEAD") == head  # nothing landed before the pick
    # Each CLI talked to its own model.
    assert claude.requests and codex_fake.requests and opencode_fake.requests

    await desk.pick(number, "b")
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.attempts is not None and report.attempts.picked == "b"
    assert git(clone, "log", "--format=%s", f"{head}..HEAD").splitlines() == ["Add B.md"]
    assert (clone / "B.md").exists()
    assert not (clone / "A.md").exists() and not (clone / "C.md").exists()
    names = git(clone, "branch", "--format=%(refname:short)").split()
    assert [name for name in names if name.startswith("worker")] == []
