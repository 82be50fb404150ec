"""Many hosts, one desk: each clone lives on a host, and every shelf step of its jobs runs there."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from desk.errors import HostError, SettingsError
from desk.hosts import normalise_host_name
from desk.models import JobOutcome, RepoPlacement
from desk.names import host_task_queue, repo_workflow_id
from desk.settings import DeskSettings, load_settings
from surfaces.desk_client import DeskClient
from tests.cli_helpers import run_cli, settings_env, shown, started_number
from tests.conftest import agent, git, make_origin
from tests.processes import StartWorker
from tests.test_desk_queue import wait_all
from tests.waiting import eventually
from workers.desk_entity import configure_desk
from workers.worker import build_worker

HOSTS = {"alpha": "acme/api", "beta": "acme/web"}
SHELF_ACTIVITIES = {
    "add_repo",
    "list_repos",
    "prepare_worktree",
    "discard_worktree",
    "run_agent",
    "integrate",
    "release_worktree",
    "change_report",
    "push",
}


def shelf_steps(events: list[HistoryEvent]) -> list[tuple[str, str, str]]:
    """(activity, task queue it was scheduled on, identity of the worker that ran it)."""
    scheduled: dict[int, tuple[str, str]] = {}
    steps = []
    for event in events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = event.activity_task_scheduled_event_attributes
            scheduled[event.event_id] = (attrs.activity_type.name, attrs.task_queue.name)
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            attrs_started = event.activity_task_started_event_attributes
            name, queue = scheduled[attrs_started.scheduled_event_id]
            if name in SHELF_ACTIVITIES:
                steps.append((name, queue, attrs_started.identity))
    return steps


def agent_spans(events: list[HistoryEvent]) -> list[tuple[datetime, datetime]]:
    """When each run_agent attempt that completed started and ended, by the history's clock."""
    starts: dict[int, datetime] = {}
    spans = []
    for event in events:
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            starts[event.activity_task_started_event_attributes.scheduled_event_id] = (
                event.event_time.ToDatetime()
            )
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            scheduled = event.activity_task_completed_event_attributes.scheduled_event_id
            if scheduled in starts:
                spans.append((starts[scheduled], event.event_time.ToDatetime()))
    return spans


async def history(client: Client, workflow_id: str) -> list[HistoryEvent]:
    return [event async for event in client.get_workflow_handle(workflow_id).fetch_history_events()]


async def test_two_hosts_run_their_own_jobs_and_a_lost_host_only_delays_its_own(
    settings: DeskSettings, client: Client, tmp_path: Path, start_worker: StartWorker
) -> None:
    envs = {
        host: settings_env(
            settings,
            CODEDESK_HOME=str(tmp_path / host),
            CODEDESK_HOST=host,
            CODEDESK_MAX_WORKERS="1",
        )
        for host in HOSTS
    }
    workers = {host: start_worker(env) for host, env in envs.items()}
    desk = DeskClient(client, settings.model_copy(update={"host_wait": timedelta(seconds=2)}))
    await eventually(
        desk.desk_state, lambda s: s is not None and set(s.hosts) == set(HOSTS), "two hosts"
    )
    for host, repo in HOSTS.items():
        origin = make_origin(tmp_path / "origins" / f"{repo}.git")
        added = await run_cli(
            envs[host], "repo", "add", repo, "--host", host, "--from", str(origin), cwd=tmp_path
        )
        assert added.returncode == 0, shown(added)
        assert f"on host {host}" in added.stdout
        assert (tmp_path / host / "shelf" / repo / ".git").is_dir()
        other = next(h for h in HOSTS if h != host)
        assert not (tmp_path / other / "shelf" / repo).exists()
    listed = await run_cli(envs["alpha"], "repo", "list", cwd=tmp_path)
    assert listed.returncode == 0, shown(listed)
    for host, repo in HOSTS.items():
        assert any(repo in line and host in line for line in listed.stdout.splitlines()), listed

    # Beta goes away: its jobs wait (and say so), alpha's run to the end meanwhile.
    os.kill(workers["beta"].pid, signal.SIGKILL)
    await asyncio.to_thread(workers["beta"].wait, 10)
    numbers: dict[str, list[int]] = {host: [] for host in HOSTS}
    for k in range(10):
        host = "alpha" if k % 2 == 0 else "beta"
        command = agent(f"write:job{k}.txt={k}", "sleep:0.5", f"commit:job {k}")
        numbers[host].append(await desk.start_job(HOSTS[host], f"job {k}", agent_command=command))
    alpha_reports = await wait_all(desk, numbers["alpha"])
    assert [r.outcome for r in alpha_reports] == [JobOutcome.INTEGRATED] * 5, alpha_reports
    first_beta = numbers["beta"][0]
    _, waiting = await eventually(
        lambda: desk.status(first_beta), lambda s: s[1].waiting_for_host == "beta", "wait"
    )
    rows = {row.number: row for row in await desk.jobs()}
    assert rows[first_beta].waiting_for_host == "beta"
    assert all(rows[n].status == "running" for n in numbers["beta"])

    start_worker(envs["beta"])
    beta_reports = await wait_all(desk, numbers["beta"])
    assert [r.outcome for r in beta_reports] == [JobOutcome.INTEGRATED] * 5, beta_reports

    for host, repo in HOSTS.items():
        clone = tmp_path / host / "shelf" / repo
        subjects = git(clone, "log", "--format=%s").splitlines()
        mine = [k for k in range(10) if ("alpha" if k % 2 == 0 else "beta") == host]
        assert sorted(subjects) == sorted([f"job {k}" for k in mine] + ["initial"])
        queue = host_task_queue(settings.task_queue, host)
        spans = []
        for number in numbers[host]:
            events = await history(client, f"job-{number}")
            steps = shelf_steps(events)
            assert {name for name, _, _ in steps} >= {"prepare_worktree", "run_agent"}
            assert all(q == queue and who.endswith(f"@{host}") for _, q, who in steps), steps
            spans += agent_spans(events)
        entity_steps = shelf_steps(await history(client, repo_workflow_id(repo)))
        assert [name for name, _, _ in entity_steps] == ["integrate"] * 5
        assert all(q == queue and who.endswith(f"@{host}") for _, q, who in entity_steps)
        # One slot per host: never two agents at once on one host.
        spans.sort()
        assert all(end <= later for (_, end), (later, _) in itertools.pairwise(spans)), spans


async def test_bad_hosts_are_refused_and_nothing_is_cloned(
    desk: DeskClient, client: Client, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    with pytest.raises(HostError, match="'nosuch' is unknown"):
        await desk.add_repo("acme/api", str(origin), host="nosuch")
    with pytest.raises(HostError, match="not usable"):
        await desk.add_repo("acme/api", str(origin), host="bad name!")
    # A host the desk heard of once, whose worker is gone.
    await configure_desk(client, settings.model_copy(update={"host": "ghost"}))
    with pytest.raises(HostError, match="'ghost' has no worker polling"):
        await desk.add_repo("acme/api", str(origin), host="ghost")
    assert not (settings.shelf_dir / "acme").exists()
    # Two hosts with workers: no default; and one repository lives on one host only.
    second = settings.model_copy(update={"host": "second", "shelf": tmp_path / "second"})
    # Another client: one client may not run two workers of one task queue.
    own = await Client.connect(
        settings.temporal_address,
        namespace=settings.namespace,
        data_converter=client.data_converter,
    )
    async with build_worker(own, second):
        await configure_desk(own, second)
        with pytest.raises(HostError, match="choose one with --host"):
            await desk.add_repo("acme/api", str(origin))
        added = await desk.add_repo("acme/api", str(origin), host=settings.host)
        assert added.host == settings.host
        with pytest.raises(HostError, match=f"already on host {settings.host}"):
            await desk.add_repo("acme/api", str(origin), host="second")
    assert not (tmp_path / "second" / "acme").exists()


async def test_a_second_worker_of_a_live_host_with_another_shelf_is_refused(
    desk: DeskClient, client: Client, settings: DeskSettings, tmp_path: Path
) -> None:
    other = settings.model_copy(update={"shelf": tmp_path / "elsewhere"})
    with pytest.raises(HostError, match="already has a worker with its shelf at"):
        await configure_desk(client, other, others_polling=True)
    state = await desk.desk_state()
    assert state is not None and state.hosts[settings.host].shelf == str(settings.shelf_dir)


def test_host_names_follow_the_owner_rules(no_env_settings: None) -> None:
    assert normalise_host_name("Build Box.example.com") == "Build-Box"
    assert normalise_host_name("-.odd") == "host"
    with pytest.raises(SettingsError, match="CODEDESK_HOST"):
        load_settings(host="bad/name")
    assert load_settings(host="gpu-1").host == "gpu-1"


async def test_a_task_for_a_host_without_a_worker_warns_at_once_and_the_job_waits(
    desk: DeskClient, client: Client, settings: DeskSettings, tmp_path: Path
) -> None:
    await configure_desk(client, settings.model_copy(update={"host": "ghost"}))
    await desk.place_repo(RepoPlacement(repo="acme/gone", host="ghost"))
    env = settings_env(settings, CODEDESK_HOST_WAIT="1s")
    started = await run_cli(env, "task", "acme/gone", "anything", cwd=tmp_path)
    assert started.returncode == 0, shown(started)
    assert "host ghost" in started.stderr and "no worker polling" in started.stderr
    number = started_number(started)
    await eventually(
        lambda: desk.status(number), lambda s: s[1].waiting_for_host == "ghost", "waiting"
    )
    shown_job = await run_cli(env, "show", str(number), cwd=tmp_path)
    assert "waiting for host ghost" in shown_job.stdout, shown(shown_job)
    listed = await run_cli(env, "jobs", "--json", cwd=tmp_path)
    [row] = json.loads(listed.stdout)
    assert row["waiting_for_host"] == "ghost", shown(listed)
    await desk.cancel(number)
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.CANCELLED


async def test_a_job_from_a_chat_thread_says_there_that_it_waits_for_its_host(
    desk: DeskClient, client: Client, settings: DeskSettings
) -> None:
    import uuid

    from temporalio.worker import Worker

    from activities.surface import SurfaceActivities
    from desk.approvals import SurfacePlace
    from tests.surfaces.fake_surface import FakeSurface

    await configure_desk(client, settings.model_copy(update={"host": "ghost"}))
    await desk.place_repo(RepoPlacement(repo="acme/gone", host="ghost"))
    hasty = DeskClient(client, settings.model_copy(update={"host_wait": timedelta(seconds=1)}))
    queue = f"fake-surface-{uuid.uuid4().hex[:8]}"
    surface = FakeSurface()
    async with Worker(client, task_queue=queue, activities=SurfaceActivities(surface).all()):
        admission = await hasty.submit_job(
            "acme/gone", "anything", place=SurfacePlace(queue=queue, channel="thread-9")
        )
        await eventually(
            lambda: surface.progress.get("thread-9", ""),
            lambda text: "Waiting for host ghost" in text,
            "the thread's progress",
        )
        await desk.cancel(admission.number)
        report = await desk.wait(admission.number)
    assert report.outcome == JobOutcome.CANCELLED
