"""A job's spend survives a SIGKILLed worker and a restarted Temporal server (issue 29): the
retried attempt of the agent's step starts from what the killed one last heartbeated, so the
job's spend limit counts both attempts and stops the second."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from desk.names import job_workflow_id
from desk.payloads.jobs import JobOutcome, JobReport
from surfaces.clients.agent_lines import agent_lines
from tests.crash.crashes import REPO, kill, restart_server, server_env
from tests.helpers.agent_pids import agent_tag, running_agent
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import pid_dead, run_cli, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.waiting import awaited, eventually, until
from workers.devserver import DevServer

SPENT = "usage:" + json.dumps({"output_tokens": 100, "cost": "0.6", "model": "m"})


async def test_the_spend_limit_counts_the_attempt_a_crash_cut_short(
    own_server: list[DevServer], origin: Path, tmp_path: Path, start_worker: StartWorker
) -> None:
    home = tmp_path / "home"
    env = server_env(own_server[0], home, CODEDESK_JOB_SPEND_LIMIT="1")
    worker = start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    tag = agent_tag()
    # Each attempt spends $0.60 and would then go on for minutes: only the limit ends it.
    command = agent(tag, SPENT, "sleep:300")
    started = await run_cli(env, "task", REPO, "spend", "--agent-command", command, cwd=tmp_path)
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    agent_pid = await running_agent(home, number, tag)
    client = await Client.connect(own_server[0].address, data_converter=pydantic_data_converter)

    async def spent() -> object:
        return (await agent_lines(client, job_workflow_id(number))).usage

    await eventually(spent, lambda usage: usage is not None and usage.cost, "the first $0.60")

    await kill(worker)
    await until(lambda: pid_dead(agent_pid), "the agent to die with its worker")
    again = await restart_server(own_server)
    start_worker(env)

    client = await Client.connect(again.address, data_converter=pydantic_data_converter)
    handle = client.get_workflow_handle(job_workflow_id(number), result_type=JobReport)
    report = await awaited(handle.result(), f"job {number}'s report")
    assert report.outcome == JobOutcome.FAILED, report
    assert report.agent_attempts == 2, report
    assert "spent 1.2 USD, at the job's spend limit $1" in report.reason, report
    assert report.usage is not None and report.usage.cost == Decimal("1.2"), report
