"""An open approval survives a SIGKILLed worker and a restarted server: it is durable state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from desk.config.settings import DeskSettings
from desk.holds.approvals import HoldVerdict, OutcomeKind, approval_id
from desk.payloads.jobs import JobOutcome
from tests.crash.crashes import (
    REPO,
    ResumeClock,
    assert_a_later_job_runs,
    assert_no_leftovers,
    kill,
    restart_server,
    server_env,
)
from tests.helpers.agent_pids import agent_tag, running_agent, tagged_pids
from tests.helpers.cli_helpers import pid_dead, run_cli, settings_env, shown, started_number
from tests.helpers.holds.approval_recovery import (
    PUSH_INPUT,
    hold_agent,
    holds_joined,
    open_approval,
    report_of,
)
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import until
from workers.devserver import DevServer
from workflows.shipping.approval import Approval


async def hold_across_a_worker_kill(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> tuple[dict[str, str], int, str, int]:
    """A job whose hold waits for a person when its worker is SIGKILLed and another started:
    (the CLI's environment, the job's number, the approval's id, the first agent's pid)."""
    env = settings_env(settings)
    first = start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    started = await run_cli(
        env, "task", REPO, "push", "--agent-command", hold_agent(tmp_path), cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    ident = await open_approval(client)
    assert ident == approval_id(f"job-{number}", "Bash", PUSH_INPUT)
    agent_pid = await running_agent(settings.home, number, agent_tag(tmp_path))

    await kill(first)
    await until(lambda: pid_dead(agent_pid), "the agent to die with its worker")
    resume_clock.restarted()
    start_worker(env)

    # The agent runs again on the new worker and asks again: the identical call joins the
    # approval that stayed open, so there is still exactly one.
    assert await holds_joined(client, number, settings.home) == 2
    assert await open_approval(client) == ident
    return env, number, ident, agent_pid


@pytest.mark.slow
async def test_an_open_approval_survives_a_sigkilled_worker(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    env, number, ident, agent_pid = await hold_across_a_worker_kill(
        settings, client, origin, tmp_path, start_worker, resume_clock
    )
    approved = await run_cli(env, "approve", ident, cwd=tmp_path)
    assert approved.returncode == 0, shown(approved)
    report = await report_of(client, number, tmp_path)
    await resume_clock.report_job(client, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.agent_attempts == 2, report
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines().count("after the push") == 1
    outcome = await client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.APPROVED
    listing = [item async for item in client.list_workflows(f"WorkflowId = '{ident}'")]
    assert len(listing) == 1  # one approval, asked twice
    assert (clone / "pushed.txt").read_text() == "yes"
    assert_no_leftovers(clone, agent_pid, *tagged_pids(agent_tag(tmp_path)))
    await assert_a_later_job_runs(env, tmp_path)


@pytest.mark.slow
async def test_a_hold_declined_after_a_worker_restart_is_refused_and_its_call_never_runs(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    env, number, ident, agent_pid = await hold_across_a_worker_kill(
        settings, client, origin, tmp_path, start_worker, resume_clock
    )
    declined = await run_cli(env, "decline", ident, cwd=tmp_path)
    assert declined.returncode == 0, shown(declined)
    report = await report_of(client, number, tmp_path)
    await resume_clock.report_job(client, number)
    # The held call (the write standing for the push) never ran, in either attempt.
    assert report.outcome == JobOutcome.NOTHING, report
    assert report.agent_attempts == 2, report
    assert "hold refused" in report.output, report.output
    assert [(call.approval_id, call.verdict) for call in report.held_calls] == [
        (ident, HoldVerdict.DECLINED)
    ], report.held_calls
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines() == ["initial"]
    assert not (clone / "pushed.txt").exists()
    outcome = await client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.DECLINED
    shown_job = await run_cli(env, "show", str(number), "--json", cwd=tmp_path)
    assert shown_job.returncode == 0, shown(shown_job)
    held = json.loads(shown_job.stdout)["job"]["report"]["held_calls"]
    assert [(call["approval_id"], call["verdict"]) for call in held] == [(ident, "declined")]
    assert_no_leftovers(clone, agent_pid, *tagged_pids(agent_tag(tmp_path)))
    await assert_a_later_job_runs(env, tmp_path)


async def test_an_open_approval_survives_a_server_restart(
    own_server: list[DevServer],
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    server = own_server[0]
    env = server_env(server, tmp_path / "home")
    start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    started = await run_cli(
        env, "task", REPO, "push", "--agent-command", hold_agent(tmp_path), cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    first = await Client.connect(server.address, data_converter=pydantic_data_converter)
    ident = await open_approval(first)

    again = await restart_server(own_server)
    resume_clock.restarted()

    client = await Client.connect(again.address, data_converter=pydantic_data_converter)
    assert await open_approval(client) == ident
    # The agent may have lost its heartbeat while the server was down and run again.
    await holds_joined(client, number, tmp_path / "home")
    approved = await run_cli(env, "approve", ident, cwd=tmp_path)
    assert approved.returncode == 0, shown(approved)

    report = await report_of(client, number, tmp_path)
    await resume_clock.report_job(client, number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert "hold allowed" in report.output, report.output
    clone = tmp_path / "home" / "shelf" / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines().count("after the push") == 1
    outcome = await client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.APPROVED
    listing = [item async for item in client.list_workflows(f"WorkflowId = '{ident}'")]
    assert len(listing) == 1  # the approval opened before the restart is the one answered
    assert_no_leftovers(clone)
    await assert_a_later_job_runs(env, tmp_path)
