"""Crashes a user can live through: a SIGKILLed worker, a restarted Temporal server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from desk.config.settings import DeskSettings
from desk.names import job_workflow_id
from desk.payloads.jobs import JobOutcome, JobReport
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import (
    REPO,
    ResumeClock,
    assert_a_later_job_runs,
    assert_no_leftovers,
    kill,
    restart_server,
    server_env,
)
from tests.helpers.agent_pids import (
    agent_tag,
    grandchild_pids,
    logged_runs,
    running_agent,
    tagged_pids,
)
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import pid_dead, run_cli, settings_env, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, until
from workers.devserver import DevServer


async def wait_report(client: Client, settings: DeskSettings, number: int) -> JobReport:
    return await awaited(
        DeskClient(client, settings).wait(number), "DeskClient(client, settings).wait(number)"
    )


async def kill_worker_during_agent(
    worker: subprocess.Popen[bytes], home: Path, number: int, tag: str
) -> int:
    """SIGKILL the worker once the agent is at its `tag` step; the agent must die with it."""
    agent_pid = await running_agent(home, number, tag)
    assert not pid_dead(agent_pid)
    await kill(worker)
    await until(lambda: pid_dead(agent_pid), "the agent to die with its worker")
    return agent_pid


async def job_on_a_worker(
    settings: DeskSettings, origin: Path, tmp_path: Path, start_worker: StartWorker, command: str
) -> tuple[dict[str, str], subprocess.Popen[bytes], int]:
    """A worker, the repository on its shelf and a job of `command`: the env, worker, number."""
    env = settings_env(settings)
    worker = start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    started = await run_cli(
        env, "task", REPO, "finish it", "--agent-command", command, cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    return env, worker, started_number(started)


async def test_sigkilled_worker_job_finishes_once_on_a_new_worker(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    tag = agent_tag()
    # Mark first: the test kills the worker as soon as the agent printed its tag.
    command = agent(
        "mark",
        tag,
        "sleep-first:30",
        "write:done.txt=ok",
        "commit:finish",
    )
    env, first, number = await job_on_a_worker(settings, origin, tmp_path, start_worker, command)

    agent_pid = await kill_worker_during_agent(first, settings.home, number, tag)
    resume_clock.restarted()
    start_worker(env)

    report = await wait_report(client, settings, number)
    await resume_clock.report_job(client, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.agent_attempts == 2, report
    clone = settings.shelf_dir / "acme" / "api"
    subjects = git(clone, "log", "--format=%s").splitlines()
    assert subjects.count("finish") == 1, subjects
    assert (clone / "done.txt").read_text() == "ok"
    assert logged_runs(settings.home) == [
        f"run {number} interrupted=0",
        f"run {number} interrupted=1",
    ]

    shown_job = await run_cli(env, "show", str(number), "--json", cwd=tmp_path)
    assert shown_job.returncode == 0, shown(shown_job)
    document = json.loads(shown_job.stdout)
    assert document["job"]["report"]["agent_attempts"] == 2
    texts = [line["text"] for line in document["history"]]
    assert "activity run_agent started (attempt 2)" in texts, texts
    assert_no_leftovers(clone, agent_pid, *tagged_pids(tag))
    await assert_a_later_job_runs(env, tmp_path)


async def test_a_grandchild_dies_with_the_worker_and_the_retry_integrates_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    tag = agent_tag()
    command = agent(
        "grandchild:60",
        tag,
        "sleep-first:30",
        "write:done.txt=ok",
        "commit:finish",
    )
    env, first, number = await job_on_a_worker(settings, origin, tmp_path, start_worker, command)

    [grandchild] = await until(lambda: grandchild_pids(tag), "the agent's grandchild")
    try:
        agent_pid = await kill_worker_during_agent(first, settings.home, number, tag)
        # The grandchild has no parent-death signal of its own: the agent's reaper takes it.
        await until(lambda: pid_dead(grandchild), "the grandchild to die with its worker")
        resume_clock.restarted()
        start_worker(env)

        report = await wait_report(client, settings, number)
        await resume_clock.report_job(client, number)
        assert report.outcome == JobOutcome.INTEGRATED, report
        assert report.agent_attempts == 2, report
        clone = settings.shelf_dir / "acme" / "api"
        subjects = git(clone, "log", "--format=%s").splitlines()
        assert subjects.count("finish") == 1, subjects
        assert_no_leftovers(clone, grandchild, agent_pid, *tagged_pids(tag))
    finally:
        if not pid_dead(grandchild):  # only when the test failed: do not leak a sleeper
            os.kill(grandchild, signal.SIGKILL)


async def test_job_survives_a_server_restart(
    own_server: list[DevServer],
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    env = server_env(own_server[0], tmp_path / "home")
    start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)

    tag = agent_tag()
    command = agent(tag, "sleep:5", "write:done.txt=ok", "commit:finish")
    started = await run_cli(
        env, "task", REPO, "finish it", "--agent-command", command, cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    agent_pid = await running_agent(tmp_path / "home", number, tag)

    assert not pid_dead(agent_pid), "the server must go down before the agent has finished"
    again = await restart_server(own_server)
    resume_clock.restarted()

    client = await Client.connect(again.address, data_converter=pydantic_data_converter)
    report = await awaited(
        client.get_workflow_handle(job_workflow_id(number), result_type=JobReport).result(),
        "client.get_workflow_handle(job_workflow_id(number), result_type=JobReport).result()",
    )
    await resume_clock.report_job(client, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    clone = tmp_path / "home" / "shelf" / "acme" / "api"
    subjects = git(clone, "log", "--format=%s").splitlines()
    assert subjects.count("finish") == 1, subjects
    assert_no_leftovers(clone, agent_pid, *tagged_pids(tag))
    await assert_a_later_job_runs(env, tmp_path)
