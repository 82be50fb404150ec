"""One host's worker killed: its jobs wait and finish on it, other hosts' jobs carry on."""

from __future__ import annotations

import itertools
import json
import subprocess
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.names import host_task_queue, repo_workflow_id
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import ResumeClock, assert_a_later_job_runs, assert_no_leftovers, kill
from tests.helpers.agent_pids import agent_tag, logged_runs, running_agent, tagged_pids
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import pid_dead, run_cli, settings_env, shown
from tests.helpers.jobs.desk_queue import wait_all
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git, make_origin
from tests.helpers.waiting import awaited, eventually, until

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


Hosts = tuple[dict[str, dict[str, str]], dict[str, subprocess.Popen[bytes]], DeskClient]


async def two_hosts(
    settings: DeskSettings, client: Client, tmp_path: Path, start_worker: StartWorker
) -> Hosts:
    """Workers of hosts alpha and beta (one job slot each), each with its own clone: the CLI's
    environment and the worker of each host, and a desk client whose steps wait 2 s for a host."""
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
    return envs, workers, desk


@pytest.mark.slow
@pytest.mark.timeout(420)
async def test_two_hosts_run_their_own_jobs_and_a_lost_host_only_delays_its_own(
    settings: DeskSettings, client: Client, tmp_path: Path, start_worker: StartWorker
) -> None:
    envs, workers, desk = await two_hosts(settings, client, tmp_path, start_worker)
    listed = await run_cli(envs["alpha"], "repo", "list", cwd=tmp_path)
    assert listed.returncode == 0, shown(listed)
    for host, repo in HOSTS.items():
        assert any(repo in line and host in line for line in listed.stdout.splitlines()), listed

    # Beta goes away: its jobs wait (and say so), alpha's run to the end meanwhile.
    await kill(workers["beta"])
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


@pytest.mark.slow
@pytest.mark.timeout(420)
async def test_a_hosts_worker_killed_mid_job_its_job_waits_and_finishes_there_once(
    settings: DeskSettings,
    client: Client,
    tmp_path: Path,
    gates: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    envs, workers, desk = await two_hosts(settings, client, tmp_path, start_worker)
    beta_home, tag, go = tmp_path / "beta", agent_tag(), gates / "go"
    steps = ("mark", tag, f"wait:{go}", "write:b.txt=b", "commit:beta")
    beta_job = await desk.start_job(HOSTS["beta"], "beta's work", agent_command=agent(*steps))
    agent_pid = await running_agent(beta_home, beta_job, tag)
    await kill(workers["beta"])
    await until(lambda: pid_dead(agent_pid), "beta's agent to die with its worker")

    # Alpha's jobs start and finish while beta is gone.
    alpha_jobs = [
        await desk.start_job(
            HOSTS["alpha"], f"alpha {k}", agent_command=agent(f"write:a{k}.txt={k}", f"commit:a{k}")
        )
        for k in range(2)
    ]
    alpha_reports = await wait_all(desk, alpha_jobs)
    assert [r.outcome for r in alpha_reports] == [JobOutcome.INTEGRATED] * 2, alpha_reports

    # Beta's job waits for its host, and says so where a person looks.
    async def beta_row() -> dict[str, object]:
        listed = await run_cli(envs["alpha"], "jobs", "--json", cwd=tmp_path)
        assert listed.returncode == 0, shown(listed)
        return next(row for row in json.loads(listed.stdout) if row["number"] == beta_job)

    row = await eventually(beta_row, lambda r: r["waiting_for_host"] == "beta", "the wait")
    assert row["status"] == "running", row

    go.touch()
    resume_clock.restarted()
    start_worker(envs["beta"])
    report = await awaited(desk.wait(beta_job), f"job {beta_job}'s report")
    await resume_clock.report_job(client, beta_job)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.agent_attempts == 2, report
    assert logged_runs(beta_home) == [
        f"run {beta_job} interrupted=0",
        f"run {beta_job} interrupted=1",
    ]
    queue = host_task_queue(settings.task_queue, "beta")
    steps_run = shelf_steps(await history(client, f"job-{beta_job}"))
    assert all(q == queue and who.endswith("@beta") for _, q, who in steps_run), steps_run
    clone = tmp_path / "beta" / "shelf" / HOSTS["beta"]
    assert git(clone, "log", "--format=%s").splitlines() == ["beta", "initial"]
    assert_no_leftovers(clone, agent_pid, *tagged_pids(tag))
    await assert_a_later_job_runs(envs["beta"], tmp_path, HOSTS["beta"])
