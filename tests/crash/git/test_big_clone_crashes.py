"""A worker SIGKILLed inside the git steps of big clones: the fast-forward of 60,000 files, and
the worktree cut, rebase, worktree removal and push of 20,000; every job ends once, clean."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from activities.jobs.worktrees import INTEGRATION_RECEIPT, MERGE_PLAN, WORKTREE_RECEIPT
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision
from desk.names import job_workflow_id
from desk.payloads.jobs import JobOutcome, JobReport
from desk.payloads.ship_payloads import PushStatus
from surfaces.clients.ship_client import ShippingClient
from tests.crash.big_repos import (
    HeldWorktreeList,
    Template,
    changed_files,
    entries,
    holds,
    kill_when,
    origin_from,
    path_of,
    slowed,
    text_of,
    watch,
)
from tests.crash.crashes import (
    REPO,
    ResumeClock,
    assert_no_leftovers,
    kill_group,
    restart_server,
    server_env,
)
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, shown, started_number
from tests.helpers.jobs.big_clone_jobs import (
    UNCONFINED,
    a_later_job_runs,
    assert_clean_at,
    big_desk,
    subjects,
    unconfined_env,
    wait_report,
)
from tests.helpers.jobs.shipping import answer
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, until
from workers.devserver import DevServer

pytestmark = pytest.mark.slow

MERGE_AGENT = (
    """sh -c 'rm -f "$(git rev-parse --git-path index.lock)" """
    """&& exec git reset --quiet --hard origin/big'"""
)
"""An agent whose one commit changes every file: its branch moves to the template's `big`.

Safe to run again when it was interrupted (a loaded machine misses the agent's heartbeats and
Temporal starts it again): a reset finishes what a killed one left, its lock included."""


NO_KEPT_WORKTREES = {"CODEDESK_KEPT_WORKTREES": "0"}
"""For the test of a worktree's removal: with none kept, a job's worktree is removed."""


async def push_head(client: Client, settings: DeskSettings, clone: Path, origin: Path) -> str:
    """Report and push the clone's HEAD as an owner does; the origin ends at that SHA."""
    shipping = ShippingClient(client, settings)
    await shipping.change_report(REPO)
    head = git(clone, "rev-parse", "HEAD")
    handle, approval = await shipping.request_push(REPO, head)
    await answer(client, approval, Decision.APPROVE, settings.owner)
    result = await awaited(handle.result(), "the push")
    assert result.status == PushStatus.PUSHED, result
    assert git(origin, "rev-parse", "main") == head
    return head


def planned_tip(settings: DeskSettings, number: int) -> bool:
    """The integration wrote its merge plan with a tip: the fast-forward is next."""
    return planned(settings.jobs_dir / str(number))


def planned(folder: Path) -> bool:
    try:
        return bool(json.loads((folder / MERGE_PLAN).read_text()).get("tip"))
    except (OSError, ValueError):
        return False


def written(template: Template, clone: Path, at: float) -> bool:
    """The fast-forward to `big` wrote the file `at` of the way through its checkout."""
    path, number = template.path(at)
    return holds(clone / path, text_of(number, "v1"))


FAST_FORWARD_POINTS: dict[str, Callable[[Template, Path], bool]] = {
    # The merge took the clone's index lock and wrote no file yet.
    "at-its-lock": lambda _, clone: (clone / ".git" / "index.lock").exists(),
    "halfway": lambda template, clone: written(template, clone, 0.5),
    # Its last file written: the index and the branch come next.
    "at-its-last-file": lambda template, clone: written(template, clone, 1.0),
}


async def merge_planned(settings: DeskSettings, number: int) -> None:
    """Wait, step by step (each under its own safety net), until the job's integration is
    about to fast-forward: its worktree cut, its agent done, its merge plan written."""
    folder = settings.jobs_dir / str(number)
    await until((folder / WORKTREE_RECEIPT).exists, f"job {number}'s worktree")
    await until((folder / "agent.log").exists, f"job {number}'s agent")
    await until(lambda: planned_tip(settings, number), f"job {number}'s merge plan")


@pytest.mark.parametrize(
    ("point", "size"),
    [("at-its-lock", "wide"), ("halfway", "big"), ("at-its-last-file", "wide")],
)
async def test_a_worker_killed_inside_the_fast_forward_of_a_big_clone_integrates_once(
    settings: DeskSettings,
    client: Client,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
    point: str,
    size: str,
) -> None:
    template: Template = request.getfixturevalue(f"{size}_template")
    origin = origin_from(template, tmp_path)
    first, desk, clone = await big_desk(settings, client, origin, start_worker)
    before, tip = git(clone, "rev-parse", "HEAD"), git(clone, "rev-parse", "origin/big")
    number = await desk.start_job(REPO, "change every file", agent_command=MERGE_AGENT)
    reached = FAST_FORWARD_POINTS[point]
    await merge_planned(settings, number)

    def inside() -> bool:
        return planned_tip(settings, number) and reached(template, clone)

    await kill_when(inside, f"the merge {point}", first)  # the worker and its git, as systemd does
    resume_clock.restarted()
    changed, head = changed_files(clone), git(clone, "rev-parse", "HEAD")
    resume_clock.note(
        f"{point}: the killed fast-forward left {changed} of {template.files} files "
        f"changed, HEAD at {'the old commit' if head == before else 'the tip'}"
    )
    if point == "halfway":
        assert head == before and changed > 0, "the kill must land inside the merge"
    start_worker(unconfined_env(settings))

    receipt = settings.jobs_dir / str(number) / INTEGRATION_RECEIPT
    await until(receipt.exists, "the retried integration")
    report = await wait_report(desk, number)
    await resume_clock.report_job(client, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["big change"], report
    assert report.head == tip
    assert_clean_at(clone, tip)
    assert subjects(clone) == ["big change", "initial"]
    assert_no_leftovers(clone)
    await a_later_job_runs(unconfined_env(settings), settings.home, client, tmp_path)
    assert subjects(clone)[0] == "later"
    await push_head(client, settings, clone, origin)


async def test_a_clone_changed_by_someone_after_a_killed_fast_forward_is_refused_untouched(
    settings: DeskSettings,
    client: Client,
    wide_template: Template,
    tmp_path: Path,
    start_worker: StartWorker,
) -> None:
    origin = origin_from(wide_template, tmp_path)
    first, desk, clone = await big_desk(settings, client, origin, start_worker)
    before = git(clone, "rev-parse", "HEAD")
    number = await desk.start_job(REPO, "change every file", agent_command=MERGE_AGENT)
    await merge_planned(settings, number)

    def inside() -> bool:
        return planned_tip(settings, number) and written(wide_template, clone, 0.5)

    await kill_when(inside, "the merge halfway", first)
    assert git(clone, "rev-parse", "HEAD") == before, "the kill must land inside the merge"
    # A person edits a file the merge had not reached yet: neither end of the fast-forward.
    last, _ = wide_template.path(1.0)
    theirs = clone / last
    theirs.write_text("a person's edit\n")
    found = git(clone, "--no-optional-locks", "status", "--porcelain", "--untracked-files=all")
    start_worker(unconfined_env(settings))

    report = await wait_report(desk, number)
    assert report.outcome == JobOutcome.REFUSED, report
    assert "changed by someone else" in report.reason, report.reason
    assert last in report.reason, report.reason
    assert f"git reset --hard {before[:12]}" in report.reason, report.reason
    assert report.branch_kept, report
    # Nothing of the clone was touched: the same files, the same HEAD, the killed git's lock.
    assert git(clone, "rev-parse", "HEAD") == before
    assert (
        git(clone, "--no-optional-locks", "status", "--porcelain", "--untracked-files=all") == found
    )
    assert theirs.read_text() == "a person's edit\n"

    # The person does what the refusal says; then the repository works again.
    saved = theirs.read_text()
    (clone / ".git" / "index.lock").unlink(missing_ok=True)
    git(clone, "reset", "--quiet", "--hard", before)
    assert saved == "a person's edit\n"
    await a_later_job_runs(unconfined_env(settings), settings.home, client, tmp_path)
    await push_head(client, settings, clone, origin)


async def test_a_job_killed_in_its_cut_its_rebase_and_its_worktree_removal_integrates_once(
    settings: DeskSettings,
    client: Client,
    wide_template: Template,
    tmp_path: Path,
    gates: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    template = wide_template
    origin = origin_from(template, tmp_path)
    worker, desk, clone = await big_desk(
        settings, client, origin, start_worker, **NO_KEPT_WORKTREES
    )
    go = gates / "go"  # where the sandboxed agent can see it
    command = agent(f"wait:{go}", "write:job.txt=job", "commit:job")
    number = await desk.start_job(REPO, "one small commit", agent_command=command)
    worktree = settings.shelf_dir / ".worktrees" / "acme" / "api" / str(number)
    admin = clone / ".git" / "worktrees" / str(number)

    # 1. Inside `git worktree add`: half of the files checked out.
    half, _ = template.path(0.5)
    await until(admin.exists, "the cut to begin")
    await kill_when(lambda: (worktree / half).exists(), "the cut halfway", worker)
    assert (admin / "locked").exists(), "git leaves a worktree cut halfway locked"
    resume_clock.note(f"cut: killed with {sum(1 for _ in worktree.rglob('*.txt'))} files out")
    worker = start_worker(unconfined_env(settings, **NO_KEPT_WORKTREES))
    log = settings.jobs_dir / str(number) / "agent.log"
    await until(log.exists, "the agent to start in the cut made again")

    # 2. Inside the rebase: the clone moved on by a third of its files while the agent worked.
    git(clone, "merge", "--ff-only", "--quiet", "origin/moved")
    moved_on = git(clone, "rev-parse", "HEAD")
    go.touch()
    plan = settings.jobs_dir / str(number) / MERGE_PLAN
    await until(plan.exists, "the integration to begin")
    middle = template.moved[len(template.moved) // 2]
    await kill_when(
        lambda: holds(worktree / path_of(middle), text_of(middle, "moved")),
        "the rebase halfway",
        worker,
    )
    assert (admin / "rebase-merge").exists(), "the kill must land inside the rebase"
    assert git(clone, "rev-parse", "HEAD") == moved_on
    # The removal that follows the integration (in the same step) waits for the clone's
    # worktree list, which the test holds until it watches: the removal cannot be over first.
    held = HeldWorktreeList(clone)
    try:
        worker = start_worker(unconfined_env(settings, **NO_KEPT_WORKTREES))

        # 3. Inside `git worktree remove`: the job integrated, its worktree partly deleted.
        receipt = settings.jobs_dir / str(number) / INTEGRATION_RECEIPT
        await until(receipt.exists, "the retried integration's receipt")
        dirs = template.dirs

        def seen() -> str:
            return f"{entries(worktree)} of {dirs} folders left"

        assert entries(worktree) > dirs, f"the removal began under the test's lock: {seen()}"
        slowed(worker)
    finally:
        held.release()
    await kill_when(lambda: 0 < entries(worktree) < dirs - 10, "the removal", worker, seen)
    resume_clock.note(f"removal: killed with {entries(worktree)} of {dirs} folders left")
    assert worktree.exists(), "the kill must land inside the removal"
    resume_clock.restarted()
    start_worker(unconfined_env(settings, **NO_KEPT_WORKTREES))

    report = await wait_report(desk, number)
    await resume_clock.report_job(client, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.branch == f"worker/{number}", "the cut made again takes the same name"
    assert [commit.subject for commit in report.commits] == ["job"], report
    assert_clean_at(clone, report.head)
    assert subjects(clone) == ["job", "moved on", "initial"]
    assert not worktree.exists()
    assert git(clone, "for-each-ref", "--format=%(refname:short)", "refs/heads/") == "main"
    assert_no_leftovers(clone)
    await a_later_job_runs(unconfined_env(settings), settings.home, client, tmp_path)
    await push_head(client, settings, clone, origin)


def pushed_origin(origin: Path, log: Path, received: Path | None = None) -> None:
    """The origin's post-receive hook logs each push that landed; with `received`, its
    pre-receive hook marks that file the first time and waits there (the pack is in the
    origin's quarantine, no ref has moved)."""
    hooks = {"post-receive": f"echo pushed >> '{log}'\n"}
    if received is not None:
        hooks["pre-receive"] = f"[ -e '{received}' ] && exit 0\ntouch '{received}'\nsleep 120\n"
    for name, text in hooks.items():
        hook = origin / "hooks" / name
        hook.write_text(f"#!/bin/sh\ncat >/dev/null\n{text}")
        hook.chmod(0o755)


STALLED_AFTER = 32 * 1024
"""Bytes of the first push that reach the origin before its stream stalls: the commands and
the start of a pack that is megabytes long."""


def stalling_receive_pack(clone: Path, stalled: Path) -> None:
    """The clone's pushes reach the origin through a `git receive-pack` whose input stops
    after STALLED_AFTER bytes the first time (marking `stalled`): the pack is arriving in the
    origin's quarantine and stays so, whatever the machine's speed, until the pusher dies.
    Later pushes pass straight through."""
    wrapper = stalled.parent / "stalling-receive-pack"
    wrapper.write_text(
        "#!/bin/sh\n"
        f"[ -e '{stalled}' ] && exec git receive-pack \"$@\"\n"
        f"{{ head -c {STALLED_AFTER}; touch '{stalled}'; sleep 120; }} | git receive-pack \"$@\"\n"
    )
    wrapper.chmod(0o755)
    git(clone, "config", "remote.origin.receivepack", str(wrapper))


def pack_arriving(origin: Path) -> bool:
    """The origin is writing the pushed pack into its quarantine (`tmp_objdir-incoming-*`)."""
    return any(
        path.stat().st_size > 0
        for path in (origin / "objects").glob("*incoming-*/pack/tmp_pack_*")
        if path.exists()
    )


@pytest.mark.parametrize("point", ["pack-arriving", "pack-received"])
async def test_a_worker_killed_inside_a_big_push_pushes_once(
    settings: DeskSettings,
    client: Client,
    wide_template: Template,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
    point: str,
) -> None:
    origin = origin_from(wide_template, tmp_path)
    worker, desk, clone = await big_desk(settings, client, origin, start_worker)
    # 20,000 new files to push: the clone takes `big`, which the origin then forgets.
    git(clone, "merge", "--ff-only", "--quiet", "origin/big")
    git(origin, "update-ref", "-d", "refs/heads/big")
    head, old = git(clone, "rev-parse", "HEAD"), git(origin, "rev-parse", "main")
    received, pushes = tmp_path / "received", tmp_path / "pushes.log"
    pushed_origin(origin, pushes, received if point == "pack-received" else None)
    if point == "pack-arriving":
        stalling_receive_pack(clone, received)
    shipping = ShippingClient(client, settings)
    await shipping.change_report(REPO)
    handle, approval = await shipping.request_push(REPO, head)
    await answer(client, approval, Decision.APPROVE, settings.owner)
    await until(lambda: entries(origin / "objects") > 2, "the push to begin")

    await watch(received.exists, "the pack to arrive" if point == "pack-arriving" else "the pack")
    if point == "pack-arriving":
        await watch(lambda: pack_arriving(origin), "the pack in the origin's quarantine")
    await kill_group(worker)
    resume_clock.restarted()
    assert git(origin, "rev-parse", "main") == old, "the kill must land before the ref moved"
    start_worker(unconfined_env(settings))

    result = await awaited(handle.result(), "the push")
    await resume_clock.report(client, handle.id)
    assert result.status == PushStatus.PUSHED, result
    assert git(origin, "rev-parse", "main") == head
    assert pushes.read_text().splitlines() == ["pushed"], "pushed more than once"
    assert_clean_at(clone, head)
    assert_no_leftovers(clone)
    await a_later_job_runs(unconfined_env(settings), settings.home, client, tmp_path)
    await push_head(client, settings, clone, origin)


async def test_the_server_restarted_and_the_worker_killed_inside_the_fast_forward_integrates_once(
    own_server: list[DevServer],
    wide_template: Template,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    home = tmp_path / "home"
    env = server_env(own_server[0], home, CODEDESK_SANDBOX=UNCONFINED)
    first = start_worker(env)
    origin = origin_from(wide_template, tmp_path)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    clone = home / "shelf" / "acme" / "api"
    tip = git(clone, "rev-parse", "origin/big")
    started = await run_cli(
        env, "task", REPO, "change every file", "--agent-command", MERGE_AGENT, cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    folder = home / "jobs" / str(number)
    await until((folder / WORKTREE_RECEIPT).exists, "the worktree")
    await until(lambda: planned(folder), "the merge plan")
    # The server and the worker (with its git) go down together inside the fast-forward.
    await kill_when(lambda: written(wide_template, clone, 0.5), "the merge halfway", first)
    again = await restart_server(own_server)
    resume_clock.restarted()
    assert changed_files(clone) > 0
    env = server_env(again, home, CODEDESK_SANDBOX=UNCONFINED)
    start_worker(env)

    client = await Client.connect(again.address, data_converter=pydantic_data_converter)
    await until((folder / INTEGRATION_RECEIPT).exists, "the retried integration")
    handle = client.get_workflow_handle(job_workflow_id(number), result_type=JobReport)
    report = await awaited(handle.result(), f"job {number}'s report")
    await resume_clock.report_job(client, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert_clean_at(clone, tip)
    assert subjects(clone) == ["big change", "initial"]
    assert_no_leftovers(clone)
    await a_later_job_runs(env, home, client, tmp_path)
