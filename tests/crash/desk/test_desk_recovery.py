"""The desk's queue survives a SIGKILLed worker and a restarted server: in order, each job once."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from desk.config.settings import DeskSettings, load_settings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import (
    ResumeClock,
    assert_a_later_job_runs,
    assert_no_leftovers,
    kill,
    restart_server,
    server_env,
)
from tests.helpers.agent_pids import agent_tag, logged_runs, running_agent, tagged_pids
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import pid_dead, settings_env
from tests.helpers.jobs.desk_queue import (
    REPO,
    admitted_order,
    desk_state,
    marked,
    marks,
    settled,
    wait_all,
)
from tests.helpers.processes import StartWorker
from tests.helpers.waiting import eventually, until
from workers.devserver import DevServer


@pytest.mark.slow
async def test_queued_jobs_run_in_order_once_after_a_worker_is_killed(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    settings = settings.model_copy(update={"max_workers": 1})
    env = settings_env(settings, CODEDESK_MAX_WORKERS="1")
    first = start_worker(env)
    desk = DeskClient(client, settings)
    await desk.add_repo(REPO, str(origin))

    log, tag = settings.home, agent_tag()  # the agents' marks are in its jobs' logs
    running = await desk.submit_job(
        REPO, "interrupted", agent_command=agent(tag, "mark", "sleep-first:30")
    )
    await marked(log, 1)
    queued = [
        await desk.submit_job(REPO, f"queued {n}", agent_command=agent("mark")) for n in range(3)
    ]
    assert [a.position for a in queued] == [1, 2, 3]

    agent_pid = await running_agent(settings.home, running.number, tag)
    await kill(first)
    await until(lambda: pid_dead(agent_pid), "the agent to die with its worker")
    resume_clock.restarted()
    start_worker(env)

    numbers = [running.number] + [a.number for a in queued]
    reports = await wait_all(desk, numbers)
    for number in numbers:
        await resume_clock.report_job(client, number)
    assert [r.outcome for r in reports] == [JobOutcome.NOTHING] * 4, [r.reason for r in reports]
    assert reports[0].agent_attempts == 2
    assert [r.agent_attempts for r in reports[1:]] == [1, 1, 1]
    # The interrupted job ran again (told so); each queued job ran once, in order, after it.
    assert marks(log) == [running.number] * 2 + numbers[1:]
    assert logged_runs(log)[1] == f"run {running.number} interrupted=1"
    assert await admitted_order(client, numbers[1:]) == numbers[1:]
    final = await settled(desk)
    assert (final.last_number, final.reclaimed) == (4, 0)
    assert_no_leftovers(settings.shelf_dir / "acme" / "api", agent_pid, *tagged_pids(tag))
    await assert_a_later_job_runs(env, tmp_path)


@pytest.mark.slow
async def test_the_queue_survives_a_server_restart(
    own_server: list[DevServer],
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    server = own_server[0]
    home = tmp_path / "home"
    env = server_env(server, home, CODEDESK_MAX_WORKERS="1")
    settings = load_settings(
        home=home, temporal_address=server.address, heartbeat_timeout="2s", max_workers=1
    )
    start_worker(env)
    client = await Client.connect(server.address, data_converter=pydantic_data_converter)
    desk = DeskClient(client, settings)
    await desk.add_repo(REPO, str(origin))

    log = home  # the agents' marks are in its jobs' logs
    running = await desk.submit_job(
        REPO, "holds the slot", agent_command=agent("mark", "sleep-first:8")
    )
    await marked(log, 1)
    queued = [
        await desk.submit_job(REPO, f"queued {n}", agent_command=agent("mark")) for n in range(2)
    ]
    assert [a.position for a in queued] == [1, 2]

    again = await restart_server(own_server)
    resume_clock.restarted()

    client = await Client.connect(again.address, data_converter=pydantic_data_converter)
    desk = DeskClient(client, settings)

    async def answer() -> object:
        return await desk.desk_state()

    await eventually(answer, lambda state: state is not None, "the desk to answer")
    numbers = [running.number] + [a.number for a in queued]
    state = await desk_state(desk)
    print(f"after the restart: {state}")
    assert state.last_number == 3
    unfinished = state.running + state.queue  # those not finished yet, still in order
    assert unfinished == numbers[len(numbers) - len(unfinished) :], state
    reports = await wait_all(desk, numbers)
    for number in numbers:
        await resume_clock.report_job(client, number)
    assert [r.outcome for r in reports] == [JobOutcome.NOTHING] * 3, [r.reason for r in reports]
    ran = marks(log)
    # The slot holder may have been retried across the restart; the queued ones ran once each,
    # in order, after it had first started.
    assert [n for n in ran if n != running.number] == numbers[1:], ran
    assert ran[0] == running.number
    assert await admitted_order(client, numbers[1:]) == numbers[1:]
    final = await settled(desk)
    assert (final.last_number, final.reclaimed) == (3, 0)
    assert_no_leftovers(home / "shelf" / "acme" / "api")
    await assert_a_later_job_runs(env, tmp_path)
