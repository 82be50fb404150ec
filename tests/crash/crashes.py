"""The crash suite's tools: kill and restart real processes, time the resume, and check that a
crash left nothing behind (no orphan agent, no half-done git, no stale lock, no lost slot)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from activities.shelf_paths import KEPT_DIR
from desk.names import job_workflow_id
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import cli_env, pid_dead, run_cli, shown, started_number
from tests.helpers.repos import git
from tests.helpers.waiting import eventually
from workers.devserver import DevServer

REPO = "acme/api"
GIT_HEARTBEAT_TIMEOUT = timedelta(seconds=5)
"""The crash suite's git heartbeat timeout (the host's default: 10 s): a killed worker's git
step is tried again this soon. Git steps heartbeat every third of it, off the event loop, but
the SDK sends a heartbeat at most every 0.8x the timeout: 5 s leaves a second for a loaded
machine. The tests on 60,000 files keep 10 s (`big_clone_jobs.BIG_GIT_HEARTBEAT_TIMEOUT`)."""
STICKY_TIMEOUT = timedelta(seconds=2)
"""The crash suite's sticky timeout (the host's default: 10 s): a killed worker's workflows go
on this soon. Too short only costs a replay on another worker, never a failure."""


RESUMED_EVENTS = {
    EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
    EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
}
"""Events that show a workflow doing work again (a timeout or a retry scheduled does not)."""


RESUME_FIGURES: list[str] = []
"""Every resume figure of the session, for the terminal summary."""


async def kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL one process and reap it."""
    os.kill(process.pid, signal.SIGKILL)
    await asyncio.to_thread(process.wait, 10)


async def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL a process started in its own session and everything in its group."""
    os.killpg(process.pid, signal.SIGKILL)
    await asyncio.to_thread(process.wait, 10)


async def restart_server(servers: list[DevServer]) -> DevServer:
    """SIGKILL the newest dev server and start another on its database file and ports."""
    server = servers[-1]
    assert server.process is not None
    server.process.kill()
    await asyncio.to_thread(server.process.wait, 10)
    again = DevServer(server.home, server.port, server.ui_port, headless=True)
    servers.append(again)
    await again.start()
    return again


def server_env(server: DevServer, home: Path, **extra: str) -> dict[str, str]:
    """The console script's environment for a desk at `home` on this test's own server."""
    return cli_env(
        CODEDESK_HOME=str(home),
        CODEDESK_TEMPORAL_ADDRESS=server.address,
        CODEDESK_HEARTBEAT_TIMEOUT="2s",
        CODEDESK_GIT_HEARTBEAT_TIMEOUT=f"{GIT_HEARTBEAT_TIMEOUT.total_seconds():g}s",
        CODEDESK_STICKY_TIMEOUT=f"{STICKY_TIMEOUT.total_seconds():g}s",
        **extra,
    )


@dataclass
class ResumeClock:
    """When something was started again, and how long each job then took to resume.

    A figure to read (printed, and listed in the terminal summary), never asserted on.
    """

    case: str
    restarted_at: datetime | None = None
    figures: list[str] = field(default_factory=list)

    def restarted(self) -> None:
        self.restarted_at = datetime.now(UTC)

    async def report(self, client: Client, workflow_id: str) -> float:
        """Print how long after the restart `workflow_id` first did work, from its history."""
        assert self.restarted_at is not None, "call restarted() when the restart happens"
        since = self.restarted_at
        handle = client.get_workflow_handle(workflow_id)
        times = [
            event.event_time.ToDatetime(tzinfo=UTC)
            async for event in handle.fetch_history_events()
            if event.event_type in RESUMED_EVENTS
        ]
        after = [moment for moment in times if moment >= since]
        if not after:
            figure = f"{self.case}: {workflow_id} had finished before the restart"
            resumed = 0.0
        else:
            resumed = (min(after) - since).total_seconds()
            finished = (max(times) - since).total_seconds()
            figure = (
                f"{self.case}: {workflow_id} resumed {resumed:.1f} s after the restart "
                f"and had its last event {finished:.1f} s after it"
            )
        self.note(figure)
        return resumed

    def note(self, figure: str) -> None:
        """Print a figure of this case and list it in the terminal summary."""
        print(figure)
        self.figures.append(figure)
        RESUME_FIGURES.append(figure)

    def since_restart(self, moment: datetime) -> float:
        assert self.restarted_at is not None, "call restarted() when the restart happens"
        return (moment - self.restarted_at).total_seconds()

    async def report_job(self, client: Client, number: int) -> float:
        return await self.report(client, job_workflow_id(number))


def job_worktrees(clone: Path) -> list[str]:
    """The worktrees of the clone's list that a job holds: neither the clone's own nor a kept
    one (idle in `.worktrees/<owner>/<repo>/.kept`, for a later job)."""
    listed = git(clone, "worktree", "list", "--porcelain").split("\n\n")
    paths = [block.splitlines()[0].removeprefix("worktree ") for block in listed if block]
    return [path for path in paths[1:] if Path(path).parent.name != KEPT_DIR]


def assert_no_leftovers(clone: Path, *pids: int) -> None:
    """The clone is not mid-rebase or mid-merge, no git lock is left in it or in any worktree,
    no job worktree is left (every job of these tests integrated; what is left is kept for a
    later job: idle, detached), and no agent lives on."""
    git_dir = clone / ".git"
    half_done = [
        name
        for name in ("rebase-merge", "rebase-apply", "MERGE_HEAD", "CHERRY_PICK_HEAD")
        if (git_dir / name).exists()
    ]
    assert not half_done, f"the clone is left mid-operation: {half_done}"
    locks = [str(path) for path in git_dir.rglob("*.lock")]
    assert not locks, f"git locks left behind: {locks}"
    shelf = clone.parent.parent
    left = shelf / ".worktrees" / clone.parent.name / clone.name
    kept = left / KEPT_DIR
    idle = sorted(path.name for path in kept.iterdir() if path.is_dir()) if kept.is_dir() else []
    worktrees = git_dir / "worktrees"
    entries = sorted(path.name for path in worktrees.iterdir()) if worktrees.is_dir() else []
    assert entries == idle, f"worktree entries {entries}, kept worktrees {idle}"
    for name in idle:
        head = (worktrees / name / "HEAD").read_text()
        assert not head.startswith("ref:"), f"kept worktree {name} is on a branch: {head}"
    jobs = [path.name for path in left.iterdir() if path.name != KEPT_DIR] if left.exists() else []
    assert not jobs, f"job worktrees left: {jobs}"
    assert job_worktrees(clone) == []
    alive = [pid for pid in pids if not pid_dead(pid)]
    assert not alive, f"agents still running after their job ended: {alive}"


async def assert_a_later_job_runs(env: dict[str, str], cwd: Path, repo: str = REPO) -> int:
    """No desk slot leaked: a new job starts and integrates, and afterwards nothing is running
    (`jobs --json`, as a person sees it)."""
    command = agent("write:later.txt=later", "commit:later")
    done = await run_cli(
        env, "task", repo, "a later job", "--agent-command", command, "--wait", cwd=cwd
    )
    assert done.returncode == 0, shown(done)
    number = started_number(done)
    assert f"job {number} on {repo}: integrated" in done.stdout, shown(done)

    async def running() -> list[object] | None:
        listed = await run_cli(env, "jobs", "--json", "--limit", "200", cwd=cwd)
        assert listed.returncode == 0, shown(listed)
        rows = [row for row in json.loads(listed.stdout) if row["status"] == "running"]
        return rows or None

    # Visibility follows a closed job shortly after; until it does, a row may still say running.
    await eventually(running, lambda rows: rows is None, "no job listed as running")
    return number


async def shown_job(env: dict[str, str], number: int, cwd: Path) -> dict[str, object]:
    """`codedesk show N --json`'s job, as a person's console script reads it; nothing while no
    worker (or server) answers."""
    done = await run_cli(env, "show", str(number), "--json", cwd=cwd)
    if done.returncode != 0:
        return {}
    found: dict[str, object] = json.loads(done.stdout)["job"]
    return found


async def until_it_runs(env: dict[str, str], cwd: Path, *args: str) -> None:
    """Run `codedesk ARGS` until it succeeds (a restarted worker or server may not answer yet);
    any other failure fails at once."""

    async def run() -> int:
        done = await run_cli(env, *args, cwd=cwd)
        assert done.returncode == 0 or "no codedesk worker" in done.stderr.lower(), shown(done)
        return done.returncode

    await eventually(run, lambda code: code == 0, f"`codedesk {' '.join(args)}`")
