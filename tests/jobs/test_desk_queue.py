"""The desk's queue as people meet it: a cap, FIFO order, positions, refusals, freed slots."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest
from temporalio.client import Client, WorkflowExecutionStatus

from desk.config.settings import DeskSettings
from desk.errors import QueueFullError
from desk.names import DESK_WORKFLOW_ID, job_workflow_id
from desk.payloads.jobs import DeskState, JobOutcome, JobReport, ReasonKind
from surfaces.clients.desk_client import DeskClient, JobRow
from surfaces.render.layout.report_reasons import report_reason
from tests.helpers.agent_pids import agent_pids, agent_tag, logged_marks
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import assert_refused, run_cli, settings_env, shown, started_number
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually
from workers.desk_handle import configure_desk

REPO = "acme/api"
T = TypeVar("T")


# Helpers shared with tests/crash/desk/test_desk_recovery.py


def marks(home: Path) -> list[int]:
    """Job numbers in the order the scripted agents' `mark` steps ran, from the agent logs of
    the jobs of the desk at `home` (a sandboxed agent writes nowhere but its worktree)."""
    return logged_marks(home)


def first_marks(home: Path) -> list[int]:
    """Each job once, in the order its agent first marked (the order the agents started)."""
    seen: list[int] = []
    for number in marks(home):
        if number not in seen:
            seen.append(number)
    return seen


def most_at_once(home: Path) -> int:
    """The most agents between their start and end marks at one time (mark, ..., mark)."""
    inside: set[int] = set()
    most = 0
    for number in marks(home):
        inside.symmetric_difference_update({number})
        most = max(most, len(inside))
    return most


async def marked(home: Path, count: int) -> list[int]:
    """Wait until the agents of the desk at `home` have marked at least `count` times."""
    found: list[int] = await eventually(
        lambda: marks(home), lambda found: len(found) >= count, f"{count} marks"
    )
    return found


async def limited(desk: DeskClient, settings: DeskSettings, **update: Any) -> DeskClient:
    """Reconfigure the running desk (as a starting worker would) and return a client for it."""
    changed = settings.model_copy(update=update)
    await configure_desk(desk.client, changed)
    return DeskClient(desk.client, changed)


async def desk_state(desk: DeskClient) -> DeskState:
    state = await desk.desk_state()
    assert state is not None, "the desk did not answer its query"
    return state


async def settled(desk: DeskClient) -> DeskState:
    """The desk once nothing runs or waits (the last job_ended signal was handled)."""
    state: DeskState = await eventually(
        lambda: desk_state(desk),
        lambda state: not state.running and not state.queue,
        "an empty desk",
    )
    return state


async def rows_of(desk: DeskClient, numbers: list[int]) -> dict[int, JobRow]:
    """`jobs()` once visibility lists every job in `numbers`."""

    async def listed() -> dict[int, JobRow]:
        return {row.number: row for row in await desk.jobs()}

    rows: dict[int, JobRow] = await eventually(
        listed, lambda rows: set(numbers) <= set(rows), f"jobs {numbers} listed"
    )
    return rows


async def wait_all(desk: DeskClient, numbers: list[int]) -> list[JobReport]:
    """Each job's report in turn: the safety net is per report, so a long queue may take as
    long as it takes while it moves."""
    return [await awaited(desk.wait(number), f"job {number}'s report") for number in numbers]


async def admitted_order(client: Client, numbers: list[int]) -> list[int]:
    """Queued jobs in the order the desk let them run (when each got its `admit` signal).

    The desk sends one `admit` at a time and awaits each, so the signals' event times order
    the admissions exactly, even where two agents then start in a race.
    """
    times = {}
    for number in numbers:
        history = client.get_workflow_handle(job_workflow_id(number)).fetch_history_events()
        async for event in history:
            attributes = event.workflow_execution_signaled_event_attributes
            if event.HasField("workflow_execution_signaled_event_attributes") and (
                attributes.signal_name == "admit"
            ):
                times[number] = event.event_time.ToDatetime()
                break
    assert sorted(times) == sorted(numbers), f"jobs never admitted: {set(numbers) - set(times)}"
    return sorted(numbers, key=lambda number: times[number])


@pytest.fixture
async def clone(desk: DeskClient, origin: Path) -> Path:
    info = await desk.add_repo(REPO, str(origin))
    return Path(info.path)


# Cap and order


async def test_two_run_four_wait_with_positions_and_start_in_order(
    desk: DeskClient, settings: DeskSettings, clone: Path, gates: Path
) -> None:
    desk = await limited(desk, settings, max_workers=2)
    # The first two hold their slots (each agent waits for its gate) while the other four
    # queue, so every position is known; then the four run in two waves.
    opened = [gates / f"go-{index}" for index in range(6)]
    admissions = []
    for index, gate in enumerate(opened):
        steps = ["mark", f"wait:{gate}"]
        if index % 2 == 0:  # half of them commit: integrated; the others change nothing
            steps += [f"write:file-{index}.txt={index}", f"commit:add file {index}"]
        steps.append("mark")
        admission = await desk.submit_job(REPO, f"job {index}", agent_command=agent(*steps))
        admissions.append(admission)
    numbers = [admission.number for admission in admissions]
    assert numbers == [1, 2, 3, 4, 5, 6]
    assert [admission.position for admission in admissions] == [0, 0, 1, 2, 3, 4]
    assert [(admission.running, admission.queued) for admission in admissions] == [
        (1, 0),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
        (2, 4),
    ]
    state = await desk_state(desk)
    assert (state.running, state.queue, state.last_number) == ([1, 2], [3, 4, 5, 6], 6)

    rows = await rows_of(desk, numbers)
    assert {number: rows[number].position for number in numbers} == {
        1: None,
        2: None,
        3: 1,
        4: 2,
        5: 3,
        6: 4,
    }
    assert [rows[number].phase for number in (3, 4, 5, 6)] == ["queued"] * 4

    # Two slots come free at a time; each wave's two start marks and two end marks.
    for wave in (0, 2, 4):
        await marked(settings.home, 2 * wave + 2)
        for gate in opened[wave : wave + 2]:
            gate.touch()
    reports = await wait_all(desk, numbers)
    assert [report.outcome for report in reports] == [
        JobOutcome.INTEGRATED,
        JobOutcome.NOTHING,
    ] * 3, [report.reason for report in reports]
    # The desk let the queued ones run in their order (exactly: one `admit` signal at a time),
    # and their agents started wave by wave: never more than two at once.
    assert await admitted_order(desk.client, numbers[2:]) == numbers[2:]
    started = first_marks(settings.home)
    assert [sorted(started[k : k + 2]) for k in (0, 2, 4)] == [[1, 2], [3, 4], [5, 6]], started
    assert sorted(marks(settings.home)) == sorted(numbers * 2)  # each agent ran once: start and end
    assert most_at_once(settings.home) == 2
    subjects = git(clone, "log", "--format=%s").splitlines()
    assert sorted(subjects) == ["add file 0", "add file 2", "add file 4", "initial"]
    final = await settled(desk)
    assert (final.last_number, final.reclaimed) == (6, 0)


async def test_past_max_queued_the_desk_refuses_and_says_why(
    desk: DeskClient, settings: DeskSettings, clone: Path
) -> None:
    desk = await limited(desk, settings, max_workers=1, max_queued=2)
    first = await desk.submit_job(REPO, "long", agent_command=agent("mark", "sleep:30"))
    await marked(settings.home, 1)
    waiting = [
        await desk.submit_job(REPO, f"wait {n}", agent_command=agent("mark")) for n in (1, 2)
    ]
    assert [(a.number, a.position) for a in (first, *waiting)] == [(1, 0), (2, 1), (3, 2)]

    with pytest.raises(QueueFullError) as refused:
        await desk.submit_job(REPO, "one too many", agent_command=agent("mark"))
    message = str(refused.value)
    assert "The desk is full" in message
    assert "1 jobs run (max_workers 1)" in message
    assert "2 wait (max_queued 2)" in message
    assert "codedesk cancel" in message
    state = await desk_state(desk)
    assert (state.last_number, state.running, state.queue) == (3, [1], [2, 3])

    await desk.cancel(1)
    reports = await wait_all(desk, [1, 2, 3])
    assert [report.outcome for report in reports] == [
        JobOutcome.CANCELLED,
        JobOutcome.NOTHING,
        JobOutcome.NOTHING,
    ]
    # The refused job took no number and left no workflow: the next one is 4.
    after = await desk.submit_job(REPO, "after", agent_command=agent("mark"))
    assert (after.number, after.position) == (4, 0)
    assert (await desk.wait(4)).outcome == JobOutcome.NOTHING
    assert marks(settings.home) == [1, 2, 3, 4]


async def test_task_prints_the_queue_position_and_jobs_shows_it(
    desk: DeskClient, settings: DeskSettings, clone: Path, tmp_path: Path
) -> None:
    desk = await limited(desk, settings, max_workers=1, max_queued=1)
    env = settings_env(settings)

    async def cli(*args: str) -> Any:
        return await run_cli(env, *args, cwd=tmp_path)

    started = await cli("task", REPO, "long one", "--agent-command", agent("sleep:30"))
    assert started.returncode == 0, shown(started)
    assert started_number(started) == 1
    queued = await cli("task", REPO, "wait for it", "--agent-command", agent("mark"))
    assert queued.returncode == 0, shown(queued)
    assert (
        f"job 2 queued at position 1 on {REPO} (1 running, 1 waiting; workflow job-2)"
        in queued.stdout
    ), shown(queued)
    assert "codedesk watch 2" in queued.stdout

    refused = await cli("task", REPO, "no room", "--agent-command", agent("mark"))
    assert_refused(refused, "The desk is full", "1 jobs run", "1 wait")

    await rows_of(desk, [1, 2])
    listed = await cli("jobs", "--json")
    assert listed.returncode == 0, shown(listed)
    rows = {row["number"]: row for row in json.loads(listed.stdout)}
    assert sorted(rows) == [1, 2], "the refused job left no workflow"
    assert rows[1]["position"] is None
    assert rows[1]["status"] == "running"
    assert rows[2]["position"] == 1
    table = await cli("jobs")
    assert table.returncode == 0, shown(table)
    line = next(line for line in table.stdout.splitlines() if line.lstrip().startswith("2 "))
    assert "queued #1" in line, table.stdout

    cancelled = await cli("cancel", "2")
    assert cancelled.returncode == 0, shown(cancelled)
    assert "job 2 on acme/api: cancelled" in cancelled.stdout, shown(cancelled)
    assert "never ran" in cancelled.stdout, shown(cancelled)
    await desk.cancel(1)
    assert (await desk.wait(1)).outcome == JobOutcome.CANCELLED
    await settled(desk)
    assert not marks(settings.home), "the cancelled queued job's agent ran"


async def test_a_cancelled_queued_job_never_runs_and_the_others_keep_order(
    desk: DeskClient, settings: DeskSettings, clone: Path, gates: Path
) -> None:
    desk = await limited(desk, settings, max_workers=1)
    go = gates / "go"
    first = await desk.submit_job(REPO, "first", agent_command=agent("mark", f"wait:{go}"))
    await marked(settings.home, 1)
    queued = [
        await desk.submit_job(REPO, f"queued {n}", agent_command=agent("mark")) for n in range(4)
    ]
    assert [a.position for a in queued] == [1, 2, 3, 4]
    gone = queued[1].number

    await desk.cancel(gone)
    report = await awaited(desk.wait(gone), f"job {gone}'s report")
    assert report.outcome == JobOutcome.CANCELLED, report
    assert report.reason_kind == ReasonKind.CANCELLED_QUEUED and not report.reason
    assert "never ran" in report_reason(report)
    assert (report.branch, report.worktree, report.agent_attempts) == ("", "", 0)
    state = await eventually(
        lambda: desk_state(desk), lambda s: gone not in s.queue, "the queue to shrink"
    )
    assert state.queue == [queued[0].number, queued[2].number, queued[3].number]
    rows = await desk.jobs()
    positions = {row.number: row.position for row in rows}
    assert [positions[a.number] for a in (queued[0], queued[2], queued[3])] == [1, 2, 3]
    assert positions[gone] is None

    go.touch()
    rest = [first.number] + [a.number for a in queued if a.number != gone]
    reports = await wait_all(desk, rest)
    assert all(r.outcome == JobOutcome.NOTHING for r in reports), reports
    assert marks(settings.home) == rest, "the cancelled job ran, or the others lost their order"
    assert not (settings.jobs_dir / str(gone)).exists()
    final = await settled(desk)
    assert final.reclaimed == 0


# No leaked slots


async def test_failure_timeout_and_cancel_while_running_each_free_the_slot(
    desk: DeskClient, settings: DeskSettings, clone: Path, gates: Path
) -> None:
    # Each slot must come back by job_ended: the desk counts every slot it had to reclaim.
    desk = await limited(desk, settings, max_workers=1)
    go = gates / "go"
    failing = await desk.submit_job(
        REPO, "fail", agent_command=agent("mark", f"wait:{go}", "exit:3")
    )
    slow = await desk.submit_job(
        REPO,
        "too slow",
        agent_command=agent("mark", "sleep:30"),
        budget=timedelta(seconds=2),
    )
    stuck = await desk.submit_job(REPO, "stuck", agent_command=agent("mark", "sleep:30"))
    last = await desk.submit_job(REPO, "last", agent_command=agent("mark"))
    assert [a.position for a in (failing, slow, stuck, last)] == [0, 1, 2, 3]
    go.touch()

    await marked(settings.home, 3)  # the stuck job's agent runs: cancel it while it runs
    await desk.cancel(stuck.number)
    numbers = [failing.number, slow.number, stuck.number, last.number]
    reports = await wait_all(desk, numbers)
    assert [r.outcome for r in reports] == [
        JobOutcome.FAILED,
        JobOutcome.TIMED_OUT,
        JobOutcome.CANCELLED,
        JobOutcome.NOTHING,
    ], [r.reason for r in reports]
    assert marks(settings.home) == numbers
    final = await settled(desk)
    assert final.reclaimed == 0, "a slot came back only by reclaiming"


def kill_agents(tag: str) -> None:
    """SIGKILL the live agents with `tag` (found on the host: a sandboxed one's own pid is its
    namespace's)."""
    for pid in agent_pids(tag):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


async def test_terminated_jobs_lose_their_slot_and_their_place(
    desk: DeskClient, settings: DeskSettings, client: Client, clone: Path, tmp_path: Path
) -> None:
    desk = await limited(desk, settings, max_workers=1, desk_reclaim_interval=timedelta(seconds=1))
    tag = agent_tag()
    running = await desk.submit_job(REPO, "held", agent_command=agent(tag, "mark", "sleep:30"))
    await marked(settings.home, 1)
    doomed = await desk.submit_job(REPO, "doomed", agent_command=agent("mark"))
    after = await desk.submit_job(REPO, "after", agent_command=agent("mark"))
    assert (doomed.position, after.position) == (1, 2)
    try:
        # Terminated: no finally runs, no job_ended is sent. The queued one first, so the
        # desk meets a gone job at the head of its queue once the slot is reclaimed.
        await client.get_workflow_handle(job_workflow_id(doomed.number)).terminate("test")
        await client.get_workflow_handle(job_workflow_id(running.number)).terminate("test")
        report = await awaited(desk.wait(after.number), f"job {after.number}'s report")
    finally:
        kill_agents(tag)
    assert report.outcome == JobOutcome.NOTHING, report
    assert marks(settings.home) == [running.number, after.number]
    final = await settled(desk)
    assert final.reclaimed == 1
    described = await client.get_workflow_handle(job_workflow_id(doomed.number)).describe()
    assert described.status == WorkflowExecutionStatus.TERMINATED

    # The desk keeps working after reclaiming: the next job runs at once.
    again = await desk.submit_job(REPO, "again", agent_command=agent("mark"))
    assert again.position == 0
    assert (await desk.wait(again.number)).outcome == JobOutcome.NOTHING


async def test_lowering_max_workers_never_stops_running_jobs(
    desk: DeskClient, settings: DeskSettings, clone: Path, gates: Path
) -> None:
    desk = await limited(desk, settings, max_workers=3)
    go = gates / "go"
    running = [
        await desk.submit_job(REPO, f"run {n}", agent_command=agent("mark", f"wait:{go}", "mark"))
        for n in range(3)
    ]
    await marked(settings.home, 3)
    desk = await limited(desk, settings, max_workers=1)
    state = await desk_state(desk)
    assert state.limits.max_workers == 1
    assert state.running == [a.number for a in running]
    waiting = await desk.submit_job(REPO, "waits", agent_command=agent("mark", "mark"))
    later = await desk.submit_job(REPO, "later", agent_command=agent("mark", "mark"))
    assert (waiting.position, later.position) == (1, 2)

    go.touch()
    numbers = [a.number for a in (*running, waiting, later)]
    reports = await wait_all(desk, numbers)
    assert all(r.outcome == JobOutcome.NOTHING for r in reports), [r.reason for r in reports]
    assert all(r.agent_attempts == 1 for r in reports)
    order = marks(settings.home)
    # The three ran to their end; the waiting ones started only when all three had ended
    # (running dropped below the new max_workers), one at a time.
    assert order[6:] == [waiting.number] * 2 + [later.number] * 2, order
    assert sorted(order[:6]) == sorted([a.number for a in running] * 2)
    await settled(desk)


# Long life


async def test_continue_as_new_with_jobs_running_and_queued_loses_nothing(
    desk: DeskClient, settings: DeskSettings, client: Client, clone: Path, gates: Path
) -> None:
    desk = await limited(desk, settings, max_workers=2, desk_history_limit=40)
    handle = client.get_workflow_handle(DESK_WORKFLOW_ID)
    first_run = (await handle.describe()).run_id
    # The first two hold their slots (until `go`) while the rest queue, so every position is
    # known.
    go = gates / "go"
    admissions, run_ids = [], []
    for n in range(12):
        command = agent("mark", f"wait:{go}" if n < 2 else "say:quick")
        admissions.append(await desk.submit_job(REPO, f"job {n}", agent_command=command))
        run_ids.append((await handle.describe()).run_id)
    numbers = [a.number for a in admissions]
    assert numbers == list(range(1, 13))
    assert [a.position for a in admissions] == [0, 0, *range(1, 11)]
    # The desk continued as new while two jobs ran and others waited, and kept its state.
    assert len(set(run_ids[2:])) > 1, run_ids
    state = await desk_state(desk)
    assert (state.last_number, state.running, state.limits.history_limit) == (12, [1, 2], 40)
    assert state.queue == numbers[2:]

    go.touch()
    reports = await wait_all(desk, numbers)
    assert [r.number for r in reports] == numbers
    assert all(r.outcome == JobOutcome.NOTHING for r in reports), [r.reason for r in reports]
    assert sorted(marks(settings.home)) == numbers, "a job ran twice or not at all"
    assert await admitted_order(client, numbers[2:]) == numbers[2:]
    final = await settled(desk)
    assert (final.last_number, final.reclaimed) == (12, 0)
    runs = [run async for run in client.list_workflows(f"WorkflowId = '{DESK_WORKFLOW_ID}'")]
    assert len(runs) >= 3, "the desk should have continued as new several times"
    assert (await handle.describe()).run_id != first_run

    next_one = await desk.submit_job(REPO, "next", agent_command=agent("mark"))
    assert (next_one.number, next_one.position) == (13, 0)
    assert (await desk.wait(13)).outcome == JobOutcome.NOTHING


# Load


async def test_twenty_submissions_at_once_are_all_admitted_and_each_job_runs_once(
    desk: DeskClient, settings: DeskSettings, clone: Path
) -> None:
    """A burst of submissions, as a busy Discord channel sends them: each gets its own number
    and its job runs once. (With the admission check a local activity, three such bursts in
    `bench/queue_throughput.py` left the desk replaying its history until every submission of
    the third gave up; this suite's server did not show it, see `Desk._check`.)"""
    total = 20
    desk = await limited(desk, settings, max_workers=4, max_queued=total)
    command = agent("mark")
    admissions = await asyncio.gather(
        *(desk.submit_job(REPO, f"burst {i}", agent_command=command) for i in range(total))
    )
    numbers = sorted(admission.number for admission in admissions)
    assert numbers == list(range(1, total + 1))
    reports = await wait_all(desk, numbers)
    assert {report.outcome for report in reports} == {JobOutcome.NOTHING}
    assert sorted(marks(settings.home)) == numbers, "a job ran twice or never"


async def test_two_hundred_jobs_through_four_slots_each_run_once(
    desk: DeskClient, settings: DeskSettings, clone: Path
) -> None:
    total = 200
    # A small history limit makes the desk continue as new many times under the load, while
    # submissions and job ends race with it.
    desk = await limited(desk, settings, max_workers=4, max_queued=total, desk_history_limit=100)
    command = agent("mark")
    gate = asyncio.Semaphore(8)

    async def submit(index: int) -> int:
        async with gate:
            admission = await desk.submit_job(REPO, f"load {index}", agent_command=command)
        return admission.number

    numbers = await asyncio.gather(*(submit(index) for index in range(total)))
    assert sorted(numbers) == list(range(1, total + 1))
    reports = await wait_all(desk, sorted(numbers))
    assert [r.number for r in reports] == list(range(1, total + 1))
    outcomes = {r.outcome for r in reports}
    assert outcomes == {JobOutcome.NOTHING}, [r.reason for r in reports if r.outcome != "nothing"]
    ran = marks(settings.home)
    assert sorted(ran) == list(range(1, total + 1)), "a job ran twice or never"
    queued = list(range(5, total + 1))
    assert await admitted_order(desk.client, queued) == queued
    final = await settled(desk)
    assert (final.last_number, final.reclaimed) == (total, 0)
    runs = [run async for run in desk.client.list_workflows(f"WorkflowId = '{DESK_WORKFLOW_ID}'")]
    assert len(runs) >= 3, "the desk should have continued as new under the load"
