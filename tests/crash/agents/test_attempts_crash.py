"""A job of several attempts (issue 48) is durable state: a worker SIGKILLed while two attempts'
agents run leaves each attempt to resume (or start over) once, the comparison whole; a server
restarted while the comparison waits for the pick loses nothing; the pick lands exactly once.
"""

from __future__ import annotations

from pathlib import Path

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from desk.names import job_workflow_id
from desk.payloads.conversation.attempt_payloads import AttemptState
from desk.payloads.jobs import JobOutcome, JobPhase
from tests.crash.crashes import (
    REPO,
    assert_a_later_job_runs,
    assert_no_leftovers,
    kill,
    restart_server,
    server_env,
    shown_job,
    until_it_runs,
)
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, shown, started_number
from tests.helpers.holds.approval_recovery import report_of
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import eventually
from workers.devserver import DevServer


def comparing(seen: dict[str, object]) -> bool:
    attempts = seen.get("attempts")
    rows = attempts.get("rows", []) if isinstance(attempts, dict) else []
    return seen.get("phase") == JobPhase.REVIEW and all(
        row.get("state") == AttemptState.READY for row in rows
    )


async def test_attempts_survive_a_sigkilled_worker_and_the_pick_a_restarted_server(
    own_server: list[DevServer], origin: Path, tmp_path: Path, start_worker: StartWorker
) -> None:
    server = own_server[0]
    gates = tmp_path / "gates"
    gates.mkdir()
    env = server_env(server, tmp_path / "home", CODEDESK_SANDBOX_READ_PATHS=str(gates))
    first = start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    gate = gates / "attempts-may-end"
    command = agent("mark", f"wait:{gate}", "write:a.txt=1", "commit:add a.txt")
    started = await run_cli(
        env, "task", REPO, "add a.txt", "--attempts", "2", "--agent-command", command, cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    attempts = (number + 1, number + 2)
    logs = [tmp_path / "home" / "jobs" / str(each) / "agent.log" for each in attempts]
    await eventually(
        lambda: all(log.is_file() and "wait for" in log.read_text() for log in logs),
        bool,
        "both attempts' agents to wait on their gate",
    )
    await kill(first)  # while both attempts' agents run
    start_worker(env)
    gate.touch()
    seen = await eventually(
        lambda: shown_job(env, number, tmp_path), comparing, f"job {number}'s comparison"
    )
    attempts_seen = seen["attempts"]
    assert isinstance(attempts_seen, dict)
    assert [row["label"] for row in attempts_seen["rows"]] == ["a", "b"]

    again = await restart_server(own_server)  # while the comparison waits for the pick
    await eventually(
        lambda: shown_job(env, number, tmp_path), comparing, "the comparison after the restart"
    )
    await until_it_runs(env, tmp_path, "pick", str(number), "b")

    client = await Client.connect(again.address, data_converter=pydantic_data_converter)
    report = await report_of(client, number, tmp_path)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.attempts is not None and report.attempts.picked == "b"
    assert [row.outcome for row in report.attempts.rows] == [
        JobOutcome.DISCARDED,
        JobOutcome.INTEGRATED,
    ]
    clone = tmp_path / "home" / "shelf" / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines().count("add a.txt") == 1
    for each in (number, *attempts):  # each job's workflow ran once, and ended
        runs = [
            run async for run in client.list_workflows(f"WorkflowId = '{job_workflow_id(each)}'")
        ]
        assert len(runs) == 1, runs
    # Each attempt's agent started over once after the kill (a command agent has no session).
    for each in attempts:
        ended = await report_of(client, each, tmp_path)
        assert (ended.agent_resumed, ended.agent_started_over) == (0, 1), ended
    assert_no_leftovers(clone)
    await assert_a_later_job_runs(env, tmp_path)
