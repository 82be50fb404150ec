"""The agent's process tree through a SIGKILLed worker, sandboxed or not: nothing outlives it,
and what the killed agent committed is kept for the retry."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from activities.sandbox.bubblewrap import BWRAP, choose_sandbox
from activities.shelf_paths import worktree_path
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import (
    REPO,
    ResumeClock,
    assert_a_later_job_runs,
    assert_no_leftovers,
    kill,
)
from tests.helpers.agent_runs.agent_processes import HOLD_PUSH, agents_in, hook_waiting, kill_all
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, settings_env, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import until


@pytest.mark.skipif(
    choose_sandbox("auto").mode != BWRAP, reason="bubblewrap does not work on this host"
)
@pytest.mark.slow
async def test_a_commit_made_before_a_worker_kill_is_kept_for_the_retry(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    env = settings_env(settings, CODEDESK_SANDBOX=BWRAP)
    first = start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    # The retry does not commit "first" again: it must find the commit the killed one made.
    steps = ["write:first.txt=1", "if-first:commit:first", "sleep-first:600"]
    command = agent(*steps, "write:second.txt=2", "commit:second")
    started = await run_cli(env, "task", REPO, "twice", "--agent-command", command, cwd=tmp_path)
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    log = settings.jobs_dir / str(number) / "agent.log"
    await until(lambda: log.is_file() and "sleep-first 600s" in log.read_text(), "the first commit")

    await kill(first)
    resume_clock.restarted()
    start_worker(env)

    report = await DeskClient(client, settings).wait(number)
    await resume_clock.report_job(client, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.agent_attempts == 2, report
    clone = settings.shelf_dir / "acme" / "api"
    subjects = git(clone, "log", "--format=%s").splitlines()
    assert subjects == ["second", "first", "initial"], subjects
    assert_no_leftovers(clone)
    await assert_a_later_job_runs(env, tmp_path)


async def test_a_sigkilled_worker_takes_the_whole_agent_tree_with_it(
    settings: DeskSettings, origin: Path, tmp_path: Path, start_worker: StartWorker, mode: str
) -> None:
    env = settings_env(settings, CODEDESK_SANDBOX=mode)
    worker = start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    # A child and grandchild in a session of their own, a grandchild in the agent's group,
    # and the hook waiting for a person: four generations below the worker.
    command = agent("escape:600", "grandchild:600:grandchild.pid", HOLD_PUSH, "sleep:600")
    started = await run_cli(env, "task", REPO, "hang on", "--agent-command", command, cwd=tmp_path)
    assert started.returncode == 0, shown(started)
    worktree = worktree_path(settings, REPO, started_number(started))
    client = await Client.connect(
        settings.temporal_address,
        namespace=settings.namespace,
        data_converter=pydantic_data_converter,
    )
    await hook_waiting(ApprovalsClient(client))
    alive = agents_in(worktree)
    assert len(alive) >= 5, alive

    os.kill(worker.pid, signal.SIGKILL)
    assert f"Agent sandbox: {mode} (" in (tmp_path / "worker-1.log").read_text()

    try:
        await until(lambda: not agents_in(worktree), f"the agent's processes {alive} to die")
    finally:
        kill_all(agents_in(worktree))
