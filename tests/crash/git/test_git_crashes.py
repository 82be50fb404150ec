"""Git steps beside a running agent and through a worker's crash or stall, with real processes."""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import subprocess
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from activities.jobs.worktrees import WORKTREE_RECEIPT
from activities.shelf_paths import worktree_path
from desk.config.settings import DeskSettings
from desk.names import SHELF_ADD_PREFIX, repo_workflow_id
from desk.payloads.jobs import JobOutcome, JobReport
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import (
    REPO,
    ResumeClock,
    assert_a_later_job_runs,
    assert_no_leftovers,
    job_worktrees,
    kill_group,
)
from tests.helpers.agent_pids import agent_tag, logged_runs, running_agent, tagged_pids
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import pid_dead, settings_env
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git, make_origin
from tests.helpers.waiting import PATIENCE, awaited, until
from workflows.job.coding_job import CodingJob
from workflows.policies import GIT_STEP_TIMEOUT

TWO_AGENTS_EXIT = 99
AGENT_HEARTBEAT = timedelta(seconds=2)
"""The heartbeat timeout `settings_env` gives the workers (CODEDESK_HEARTBEAT_TIMEOUT=2s)."""


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def slow_packs(tmp_path: Path) -> Path:
    """A git config under which every pack served waits for `tmp_path/gate` (at most 120 s),
    after touching `tmp_path/pack-started`: a clone from a `file://` URL as slow as wanted."""
    started, gate = tmp_path / "pack-started", tmp_path / "gate"
    hook = executable(
        tmp_path / "slow-pack",
        "#!/bin/sh\n"
        f"touch '{started}'\n"
        f"for i in $(seq 1200); do [ -e '{gate}' ] && break; sleep 0.1; done\n"
        'exec "$@"\n',
    )
    config = tmp_path / "gitconfig"
    config.write_text(f"[uploadpack]\n\tpackObjectsHook = {hook}\n")
    return config


def worker_with_git(
    start_worker: StartWorker, settings: DeskSettings, tmp_path: Path, before: str
) -> subprocess.Popen[bytes]:
    """A worker whose git runs the shell text `before`, then the real git (unless it exits)."""
    wrappers = tmp_path / "bin"
    wrappers.mkdir()
    executable(wrappers / "git", f'#!/bin/sh\n{before}exec /usr/bin/git "$@"\n')
    env = settings_env(settings)
    return start_worker({**env, "PATH": f"{wrappers}:{env['PATH']}"})


async def desk_with_git(
    start_worker: StartWorker,
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    before: str,
) -> tuple[subprocess.Popen[bytes], DeskClient, Path]:
    """A worker whose git runs `before` (see `worker_with_git`), a desk, and acme/api's clone."""
    worker = worker_with_git(start_worker, settings, tmp_path, before)
    desk = DeskClient(client, settings)
    clone = Path((await desk.add_repo(REPO, str(origin))).path)
    return worker, desk, clone


def pause_once_after(words: str, paused: Path) -> str:
    """Wrapper text: after the first git call whose arguments hold `words`, mark `paused` and
    sleep (the test kills the worker in that window)."""
    return (
        f'case "$*" in *"{words}"*)\n'
        '  /usr/bin/git "$@"; code=$?\n'
        f"  [ -e '{paused}' ] || {{ touch '{paused}'; sleep 120; }}\n"
        "  exit $code;;\n"
        "esac\n"
    )


async def wait_report(desk: DeskClient, number: int) -> JobReport:
    return await awaited(desk.wait(number), f"job {number}'s report")


def subjects(clone: Path) -> list[str]:
    return git(clone, "log", "--format=%s").splitlines()


async def test_a_slow_clone_does_not_stall_a_running_agent_or_a_query(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    gates: Path,
    start_worker: StartWorker,
) -> None:
    # Every pack the worker's git serves waits for the gate: a clone as slow as the test wants.
    started, gate = tmp_path / "pack-started", tmp_path / "gate"
    start_worker(settings_env(settings, GIT_CONFIG_GLOBAL=str(slow_packs(tmp_path))))
    desk = DeskClient(client, settings)
    await desk.add_repo(REPO, str(origin))  # a local path: no pack is served, no wait

    tag, go = agent_tag(), gates / "go"
    command = agent(tag, f"wait:{go}", "write:done.txt=ok", "commit:finish")
    number = await desk.start_job(REPO, "finish it", agent_command=command)
    await running_agent(settings.home, number, tag)

    other = make_origin(tmp_path / "origins" / "acme" / "tool.git")
    adding = asyncio.create_task(desk.add_repo("acme/tool", f"file://{other}"))
    try:
        await until(started.exists, "the clone to start")
        # Three agent heartbeat timeouts with the clone stuck: a worker whose event loop ran
        # the clone would miss the agent's heartbeats, and Temporal would start it again.
        await asyncio.sleep(3 * AGENT_HEARTBEAT.total_seconds())
        asked = time.monotonic()
        status = await client.get_workflow_handle_for(CodingJob.run, f"job-{number}").query(
            CodingJob.current, rpc_timeout=timedelta(seconds=PATIENCE)
        )
        print(f"query answered in {time.monotonic() - asked:.2f}s during the clone")
        assert status.phase == "working", status
        assert not adding.done(), "the clone must still be waiting for the gate"
    finally:
        gate.touch()
    added = await awaited(adding, "the clone to finish")
    assert added.repo == "acme/tool"

    go.touch()
    report = await wait_report(desk, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.agent_attempts == 1, report


@pytest.mark.parametrize("agent_done_while_stopped", [True, False], ids=["done", "running"])
async def test_a_worker_stopped_past_its_heartbeat_timeout_integrates_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    gates: Path,
    start_worker: StartWorker,
    agent_done_while_stopped: bool,
    resume_clock: ResumeClock,
) -> None:
    worker = start_worker(settings_env(settings))
    desk = DeskClient(client, settings)
    clone = Path((await desk.add_repo(REPO, str(origin))).path)

    tag, go = agent_tag(), gates / "go"
    # An agent that finds another agent of the job still running exits 99 at once: a second
    # agent in the worktree would fail the job. The lock file is made here, where every
    # sandbox sees the same file (flock needs no write access to lock it).
    lock = gates / "one-agent"
    lock.touch()
    command = f"flock -n -E {TWO_AGENTS_EXIT} {lock} " + agent(
        "mark", tag, f"wait:{go}", "write:done.txt=ok", "commit:finish"
    )
    number = await desk.start_job(REPO, "finish it", agent_command=command)
    agent_pid = await running_agent(settings.home, number, tag)

    os.kill(worker.pid, signal.SIGSTOP)
    try:
        if agent_done_while_stopped:
            go.touch()  # the agent finishes and commits while its worker cannot see it
            await until(lambda: pid_dead(agent_pid), "the agent to finish")
        await asyncio.sleep(3 * AGENT_HEARTBEAT.total_seconds())
    finally:
        os.kill(worker.pid, signal.SIGCONT)
        resume_clock.restarted()
    if not agent_done_while_stopped:
        # The retry kills the stale agent before it starts the agent again: never two at once.
        await until(lambda: len(logged_runs(settings.home)) >= 2, "the second run")
        assert pid_dead(agent_pid), "the first agent must be gone before the second runs"
        go.touch()

    report = await wait_report(desk, number)
    await resume_clock.report_job(client, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["finish"], report
    assert subjects(clone).count("finish") == 1, subjects(clone)
    assert (clone / "done.txt").read_text() == "ok"
    assert worker.poll() is None, "the worker lives on after SIGCONT"
    assert_no_leftovers(clone, agent_pid, *tagged_pids(tag))
    # The worker may also be handed an attempt while it is stopped, which times out in turn:
    # then the agent runs a third time, after the stale one was killed.
    marks = logged_runs(settings.home)
    assert marks[0] == f"run {number} interrupted=0", marks
    assert set(marks[1:]) == {f"run {number} interrupted=1"}, marks
    await assert_a_later_job_runs(settings_env(settings), tmp_path)


@pytest.mark.parametrize(
    ("words", "step"),
    [("worktree add", "prepare_worktree"), ("merge --ff-only", "integrate")],
    ids=["after-cutting-the-worktree", "after-the-fast-forward"],
)
async def test_a_worker_killed_after_a_git_step_acted_resumes_soon_and_finishes_it_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    words: str,
    step: str,
    resume_clock: ResumeClock,
) -> None:
    # The worker's git pauses once right after the step's git command did its work, before the
    # step is recorded: the worker (and everything it started) is killed in that window.
    paused = tmp_path / "paused"
    first, desk, clone = await desk_with_git(
        start_worker, settings, client, origin, tmp_path, pause_once_after(words, paused)
    )
    number = await desk.start_job(
        REPO, "finish it", agent_command=agent("write:done.txt=ok", "commit:finish")
    )
    await until(paused.exists, f"git {words}")
    await kill_group(first)
    resume_clock.restarted()
    start_worker(settings_env(settings))

    report = await wait_report(desk, number)
    await resume_clock.report_job(client, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    # A retry that finds the fast-forward done still lists what it brought in.
    assert [commit.subject for commit in report.commits] == ["finish"], report
    assert report.head == git(clone, "rev-parse", "HEAD")
    assert subjects(clone).count("finish") == 1, subjects(clone)
    assert not Path(report.worktree).exists()
    # A retried cut removes the dead attempt's branch too, and cuts the same name again.
    assert report.branch == f"worker/{number}", report
    assert git(clone, "for-each-ref", "--format=%(refname:short)", "refs/heads/") == "main"
    owner = f"job-{number}" if step == "prepare_worktree" else repo_workflow_id(REPO)
    await assert_resumed_on_heartbeat(client, owner, step)
    assert_no_leftovers(clone)
    await assert_a_later_job_runs(settings_env(settings), tmp_path)


async def test_a_worker_killed_mid_rebase_resumes_and_redoes_the_rebase(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    gates: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    # The worker's integration rebase stops after its first commit, mid-rebase, and the worker
    # (with its git) is killed there: the worktree is left in the middle of a rebase.
    paused = tmp_path / "paused"
    wrapper = (
        f'if [ ! -e \'{paused}\' ]; then case "$*" in *"rebase --quiet"*)\n'
        f'  exec /usr/bin/git "$@" --exec "touch \'{paused}\'; sleep 120";; esac; fi\n'
    )

    def mid_rebase(worktree: Path) -> None:
        git_dir = Path(git(worktree, "rev-parse", "--absolute-git-dir"))
        assert (git_dir / "rebase-merge").exists(), "the worktree is mid-rebase before the kill"

    await kill_during_integration(
        settings, client, origin, tmp_path, gates, start_worker, resume_clock, wrapper, mid_rebase
    )


async def test_a_worker_killed_between_the_rebase_and_the_fast_forward_integrates_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    gates: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    # The rebase is done (the branch's commits are new ones on top of the clone's) and the
    # clone not yet fast-forwarded when the worker and its git are killed.
    paused = tmp_path / "paused"
    wrapper = pause_once_after("rebase --quiet", paused)
    clone = settings.shelf_dir / "acme" / "api"

    def rebased_not_merged(worktree: Path) -> None:
        git_dir = Path(git(worktree, "rev-parse", "--absolute-git-dir"))
        assert not (git_dir / "rebase-merge").exists(), "the rebase must be done before the kill"
        assert git(worktree, "log", "--format=%s").splitlines()[:3] == ["second", "first", "other"]
        assert subjects(clone)[0] == "other", "the clone must not be fast-forwarded yet"

    await kill_during_integration(
        settings,
        client,
        origin,
        tmp_path,
        gates,
        start_worker,
        resume_clock,
        wrapper,
        rebased_not_merged,
    )


async def kill_during_integration(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    gates: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
    wrapper: str,
    before_the_kill: Callable[[Path], None],
) -> None:
    """Run a two-commit job while the clone moves on, kill the worker (and its git) where the
    git `wrapper` pauses the integration, check the worktree with `before_the_kill`, and see the
    job integrate once on a new worker."""
    paused = tmp_path / "paused"
    first, desk, clone = await desk_with_git(
        start_worker, settings, client, origin, tmp_path, wrapper
    )
    go = gates / "go"
    steps = (f"wait:{go}", "write:a.txt=a", "commit:first", "write:b.txt=b", "commit:second")
    number = await desk.start_job(REPO, "two commits", agent_command=agent(*steps))
    await until(lambda: (settings.jobs_dir / str(number) / "agent.log").exists(), "the agent")
    # Another commit lands in the clone while the agent works, so the rebase has work to do.
    (clone / "other.txt").write_text("other\n")
    git(clone, "add", "other.txt")
    git(clone, "commit", "--quiet", "-m", "other")
    go.touch()
    await until(paused.exists, "the integration to pause")
    worktree = settings.shelf_dir / ".worktrees" / "acme" / "api" / str(number)
    before_the_kill(worktree)
    await kill_group(first)
    resume_clock.restarted()
    start_worker(settings_env(settings))

    report = await wait_report(desk, number)
    await resume_clock.report_job(client, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["first", "second"], report
    assert subjects(clone)[:3] == ["second", "first", "other"], subjects(clone)
    assert subjects(clone).count("first") == 1, subjects(clone)
    assert not worktree.exists()
    await assert_resumed_on_heartbeat(client, repo_workflow_id(REPO), "integrate")
    assert_no_leftovers(clone)
    await assert_a_later_job_runs(settings_env(settings), tmp_path)


async def assert_resumed_on_heartbeat(client: Client, workflow_id: str, step: str) -> None:
    """The step's second attempt started before its first could have timed out."""
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    scheduled = next(
        event
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == step
    )
    retried = next(
        event
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
        and event.activity_task_started_event_attributes.scheduled_event_id == scheduled.event_id
    )
    assert retried.activity_task_started_event_attributes.attempt == 2
    waited = retried.event_time.ToDatetime() - scheduled.event_time.ToDatetime()
    print(f"{step} resumed {waited.total_seconds():.1f}s after it was first scheduled")
    assert waited < GIT_STEP_TIMEOUT, "resumed on the heartbeat timeout, not start-to-close"


async def test_a_worker_killed_mid_clone_clones_again_and_leaves_no_partial_clone(
    settings: DeskSettings, client: Client, tmp_path: Path, start_worker: StartWorker
) -> None:
    started = tmp_path / "pack-started"
    first = start_worker(settings_env(settings, GIT_CONFIG_GLOBAL=str(slow_packs(tmp_path))))
    desk = DeskClient(client, settings)
    other = make_origin(tmp_path / "origins" / "acme" / "tool.git")
    adding = asyncio.create_task(desk.add_repo("acme/tool", f"file://{other}"))
    await until(started.exists, "the clone to start")
    await kill_group(first)
    start_worker(settings_env(settings))

    added = await awaited(adding, "the clone to finish")
    assert added.repo == "acme/tool" and added.last_commit == "initial", added
    owner = settings.shelf_dir / "acme"
    assert not [path.name for path in owner.iterdir() if ".partial-" in path.name]
    assert [clone.repo for clone in await desk.list_repos()] == ["acme/tool"]
    await assert_resumed_on_heartbeat(client, f"{SHELF_ADD_PREFIX}acme/tool", "add_repo")


async def test_a_job_cancelled_while_its_worktree_is_cut_leaves_no_worktree(
    settings: DeskSettings, client: Client, origin: Path, tmp_path: Path, start_worker: StartWorker
) -> None:
    # The worker's git stops inside `worktree add` until the gate opens; the job is cancelled
    # there, and the cut goes on in its thread after the cancel.
    cutting, gate = tmp_path / "cutting", tmp_path / "gate"
    stop_the_cut = (
        f'case "$*" in *"worktree add"*)\n'
        f"  touch '{cutting}'; while [ ! -e '{gate}' ]; do sleep 0.1; done;;\nesac\n"
    )
    _, desk, clone = await desk_with_git(
        start_worker, settings, client, origin, tmp_path, stop_the_cut
    )
    command = agent("write:never.txt=x", "commit:never")
    number = await desk.start_job(REPO, "cancelled early", agent_command=command)
    await until(cutting.exists, "git worktree add")
    await desk.cancel(number)
    gate.touch()

    report = await wait_report(desk, number)
    assert report.outcome == JobOutcome.CANCELLED, report
    receipt = settings.jobs_dir / str(number) / WORKTREE_RECEIPT
    await until(receipt.exists, "the cut to finish in its thread")
    assert not worktree_path(settings, REPO, number).exists()
    assert git(clone, "for-each-ref", "--format=%(refname:short)", "refs/heads/") == "main"
    assert job_worktrees(clone) == []  # handed back to the kept ones, or removed
