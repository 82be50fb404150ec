"""A job waiting in review (issue 46) is durable state: it survives a restarted server, and a
revision survives a SIGKILLed worker; each job ends exactly once, its work landed once.

The agent is the one-shot agent codedesk takes for aider (tests/helpers/jobs/one_shot.py): a
revision's words are the steps it runs, so the revision waits on a gate while the worker dies.
"""

from __future__ import annotations

from pathlib import Path

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from desk.names import job_workflow_id
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
from tests.helpers.cli_helpers import run_cli, shown, started_number
from tests.helpers.holds.approval_recovery import report_of
from tests.helpers.jobs.one_shot import one_shot_command
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import eventually
from workers.devserver import DevServer


async def in_review(env: dict[str, str], number: int, cwd: Path, rounds: int) -> None:
    """Until `codedesk show N --json` says the job waits in review for round `rounds`."""

    def waiting(seen: dict[str, object]) -> bool:
        kept = seen.get("review_rounds")
        return (
            seen.get("phase") == JobPhase.REVIEW and isinstance(kept, list) and len(kept) == rounds
        )

    await eventually(
        lambda: shown_job(env, number, cwd), waiting, f"job {number} in review, round {rounds}"
    )


async def ended_once(client: Client, number: int) -> None:
    """The job's workflow ran once: one run of its id, closed."""
    runs = [run async for run in client.list_workflows(f"WorkflowId = '{job_workflow_id(number)}'")]
    assert len(runs) == 1, runs


async def test_a_job_in_review_survives_a_server_restart(
    own_server: list[DevServer], origin: Path, tmp_path: Path, start_worker: StartWorker
) -> None:
    server = own_server[0]
    env = server_env(server, tmp_path / "home")
    start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    command = one_shot_command(tmp_path / "one-shot-bin")
    started = await run_cli(
        env, "task", REPO, "write:a.txt=1", "--agent-command", command, "--review", cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    await in_review(env, number, tmp_path, 1)

    again = await restart_server(own_server)
    await in_review(env, number, tmp_path, 1)  # still waiting, as it was
    await until_it_runs(env, tmp_path, "integrate", str(number))

    client = await Client.connect(again.address, data_converter=pydantic_data_converter)
    report = await report_of(client, number, tmp_path)
    assert report.outcome == JobOutcome.INTEGRATED, report
    clone = tmp_path / "home" / "shelf" / "acme" / "api"
    assert (clone / "a.txt").read_text() == "1"
    assert git(clone, "log", "--format=%s").splitlines().count("one-shot agent: work") == 1
    await ended_once(client, number)
    assert_no_leftovers(clone)
    await assert_a_later_job_runs(env, tmp_path)


async def test_a_revision_survives_a_sigkilled_worker(
    own_server: list[DevServer], origin: Path, tmp_path: Path, start_worker: StartWorker
) -> None:
    server = own_server[0]
    gates = tmp_path / "gates"
    gates.mkdir()
    env = server_env(server, tmp_path / "home", CODEDESK_SANDBOX_READ_PATHS=str(gates))
    first = start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    command = one_shot_command(tmp_path / "one-shot-bin")
    started = await run_cli(
        env, "task", REPO, "write:a.txt=1", "--agent-command", command, "--review", cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    await in_review(env, number, tmp_path, 1)

    gate = gates / "revision-may-end"
    said = await run_cli(env, "say", str(number), f"wait-file:{gate}\nwrite:b.txt=2", cwd=tmp_path)
    assert said.returncode == 0, shown(said)
    log = tmp_path / "home" / "jobs" / str(number) / "agent.log"
    await eventually(
        lambda: log.read_text() if log.is_file() else "",
        lambda text: text.count("scripted agent: waiting for") >= 1,
        "the revision to wait on its gate",
    )
    await kill(first)  # during the revision round
    start_worker(env)
    gate.touch()
    await in_review(env, number, tmp_path, 2)
    await until_it_runs(env, tmp_path, "integrate", str(number))

    client = await Client.connect(server.address, data_converter=pydantic_data_converter)
    report = await report_of(client, number, tmp_path)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [round.verdict for round in report.review_rounds] == ["revise", "integrate"]
    clone = tmp_path / "home" / "shelf" / "acme" / "api"
    assert (clone / "a.txt").read_text() == "1" and (clone / "b.txt").read_text() == "2"
    await ended_once(client, number)
    assert_no_leftovers(clone)
    await assert_a_later_job_runs(env, tmp_path)
