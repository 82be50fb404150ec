"""The agent's process tree: it ends with the agent, it dies with a SIGKILLed worker, and the
agent's environment names its worktree and carries none of the owner's authority."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from activities.sandbox.bubblewrap import BWRAP
from activities.shelf_paths import worktree_path
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agent_runs.agent_processes import agents_in, kill_all
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import assert_refused, run_cli, settings_env, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from workers.desk_handle import configure_desk
from workers.worker import build_worker

REPO = "acme/api"


@pytest.fixture
async def desk_in(
    client: Client, settings: DeskSettings, origin: Path, mode: str
) -> AsyncIterator[DeskClient]:
    local = settings.model_copy(update={"sandbox": mode})
    async with build_worker(client, local):
        await configure_desk(client, local)
        desk = DeskClient(client, local)
        await desk.add_repo(REPO, str(origin))
        yield desk


async def test_the_job_ends_when_the_agent_exits(desk_in: DeskClient, mode: str) -> None:
    # The sleeper keeps the agent's stdout open and left its process group: only its end
    # of life with the agent lets the job end before its budget of an hour.
    command = agent("background:600", "write:done.txt=ok", "commit:done")
    number = await desk_in.start_job(REPO, "commit and leave", agent_command=command)
    worktree = worktree_path(desk_in.settings, REPO, number)
    try:
        report = await desk_in.wait(number)
        assert report.outcome == JobOutcome.INTEGRATED, report
        assert report.confinement == mode
        assert agents_in(worktree) == []
    finally:
        kill_all(agents_in(worktree))


@pytest.mark.unconfined("it proves an unconfined agent's $PWD, and `show` saying it ran unconfined")
async def test_the_agent_writes_where_pwd_says_not_where_the_worker_started(
    settings: DeskSettings, origin: Path, tmp_path: Path, start_worker: StartWorker
) -> None:
    # The worker runs in another git repository: an agent that works in $PWD (as opencode
    # does) must still commit into its worktree.
    git(tmp_path, "init", "--quiet")
    env = settings_env(settings, PWD=str(tmp_path))  # as a shell sets it: `cd repo && codedesk`
    start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    command = agent("write-pwd:from-pwd.txt=here", "commit:from pwd")
    started = await run_cli(env, "task", REPO, "use pwd", "--agent-command", command, cwd=tmp_path)
    assert started.returncode == 0, shown(started)
    client = await Client.connect(
        settings.temporal_address,
        namespace=settings.namespace,
        data_converter=pydantic_data_converter,
    )
    number = started_number(started)
    report = await DeskClient(client, settings).wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (settings.shelf_dir / "acme" / "api" / "from-pwd.txt").read_text() == "here"
    assert not (tmp_path / "from-pwd.txt").exists()
    # This worker runs agents without a sandbox, and `show` says so.
    show = await run_cli(env, "show", str(number), cwd=tmp_path)
    assert "sandbox: none (the agent ran unconfined)" in show.stdout, shown(show)


async def test_the_agent_gets_none_of_the_owners_authority(
    desk_in: DeskClient, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("GH_TOKEN", "ghp_abcdefghijklmnopqrstuvwxyz0123")
    monkeypatch.setenv("SSH_AUTH_SOCK", "/run/owner-agent.sock")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "model-key")
    number = await desk_in.start_job(REPO, "look", agent_command=agent("env-all"))
    report = await desk_in.wait(number)
    shown_env = json.loads(report.output.split("scripted agent: env ", 1)[1].splitlines()[0])
    names = set(shown_env["names"])
    assert {"GH_TOKEN", "SSH_AUTH_SOCK", "CODEDESK_HOME"}.isdisjoint(names), names
    assert {"ANTHROPIC_API_KEY", "CODEDESK_JOB", "CODEDESK_HOLD_SOCKET", "PATH"} <= names
    assert shown_env["PWD"] == report.worktree
    assert Path(shown_env["HOME"]) != Path.home() or mode == BWRAP


async def test_a_worker_told_to_use_bwrap_refuses_to_start_without_it(
    settings: DeskSettings, tmp_path: Path
) -> None:
    # git and no bwrap on this PATH: the worker must not fall back to running agents unconfined.
    only_git = tmp_path / "bin"
    only_git.mkdir()
    (only_git / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    env = settings_env(settings, CODEDESK_SANDBOX=BWRAP, PATH=str(only_git))
    started = await run_cli(env, "worker", cwd=tmp_path, timeout=60)
    assert_refused(started, "CODEDESK_SANDBOX=bwrap", "bubblewrap (bwrap) is not installed")
