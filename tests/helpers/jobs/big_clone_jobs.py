"""Jobs on a big clone in the crash suite: a desk whose worker runs agents unconfined (the tests
are about the host's git steps), a job's report, a later job that must still integrate, and what
the clone's history and tree say; shared by tests/crash/git/test_big_clone_crashes.py and
test_kept_worktree_crashes.py."""

from __future__ import annotations

import json
import subprocess
from datetime import timedelta
from pathlib import Path

from temporalio.client import Client

from activities.jobs.worktrees import INTEGRATION_RECEIPT, WORKTREE_RECEIPT
from desk.config.settings import DeskSettings
from desk.names import job_workflow_id
from desk.payloads.jobs import JobOutcome, JobReport
from surfaces.clients.desk_client import DeskClient
from tests.crash.big_repos import changed_files
from tests.crash.crashes import REPO
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, settings_env, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually, until

UNCONFINED = "none"


BIG_GIT_HEARTBEAT_TIMEOUT = timedelta(seconds=10)
"""The host's default git heartbeat timeout, for steps on 60,000 files whatever the crash suite
sets: on a loaded machine a shorter one had a step still checking out tried again (the kept
worktrees' crash tests took 27 s at 10 s, 40-53 s at 5 s, 49-76 s at 3 s)."""


def unconfined_env(settings: DeskSettings, **extra: str) -> dict[str, str]:
    """The workers' and console scripts' environment, agents unconfined, and why: these tests
    are about the host's git steps, and a confined agent's commit of 60,000 files would first
    be handed back out of the sandbox object by object (tests/agent/test_agent_git_crashes.py kills
    that hand-back; the other crash tests run agents in the sandbox)."""
    return settings_env(
        settings,
        CODEDESK_SANDBOX=UNCONFINED,
        CODEDESK_GIT_HEARTBEAT_TIMEOUT=f"{BIG_GIT_HEARTBEAT_TIMEOUT.total_seconds():g}s",
        **extra,
    )


async def big_desk(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    start_worker: StartWorker,
    **extra: str,
) -> tuple[subprocess.Popen[bytes], DeskClient, Path]:
    worker = start_worker(unconfined_env(settings, **extra))
    desk = DeskClient(client, settings)
    clone = Path((await desk.add_repo(REPO, str(origin))).path)
    return worker, desk, clone


async def wait_report(desk: DeskClient, number: int) -> JobReport:
    return await awaited(desk.wait(number), f"job {number}'s report")


async def a_later_job_runs(env: dict[str, str], home: Path, client: Client, cwd: Path) -> None:
    """As `assert_a_later_job_runs` (a job started from the CLI integrates, no job is left
    running), waiting in steps: on a big clone the cut, the agent and the integration each take
    seconds, and each gets its own safety net."""
    command = agent("write:later.txt=later", "commit:later")
    started = await run_cli(env, "task", REPO, "a later job", "--agent-command", command, cwd=cwd)
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    folder = home / "jobs" / str(number)
    await until((folder / WORKTREE_RECEIPT).exists, f"job {number}'s worktree")
    await until((folder / INTEGRATION_RECEIPT).exists, f"job {number}'s integration")
    handle = client.get_workflow_handle(job_workflow_id(number), result_type=JobReport)
    report = await awaited(handle.result(), f"job {number}'s report")
    assert report.outcome == JobOutcome.INTEGRATED, report

    async def running() -> list[object]:
        listed = await run_cli(env, "jobs", "--json", "--limit", "200", cwd=cwd)
        assert listed.returncode == 0, shown(listed)
        return [row for row in json.loads(listed.stdout) if row["status"] == "running"]

    await eventually(running, lambda rows: not rows, "no job listed as running")


def subjects(clone: Path) -> list[str]:
    return git(clone, "log", "--format=%s").splitlines()


def assert_clean_at(clone: Path, head: str) -> None:
    assert git(clone, "rev-parse", "HEAD") == head
    assert changed_files(clone) == 0, git(clone, "status", "--short")
