"""Everything killed at once (server, worker, agents) and started again: all work resumes."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from desk.holds.approvals import OutcomeKind
from desk.payloads.jobs import JobOutcome
from tests.crash.crashes import REPO, ResumeClock, assert_a_later_job_runs, assert_no_leftovers
from tests.helpers.agent_pids import agent_tag, job_runs, running_agent, tagged_pids
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import cli_env, pid_dead, run_cli, shown, started_number
from tests.helpers.holds.approval_recovery import PUSH, holds_joined, open_approval, report_of
from tests.helpers.repos import git
from tests.helpers.surfaces.cli_up import StartUp, servers_on, up_log
from tests.helpers.waiting import until
from workers.devserver import DB_FILE, free_port
from workflows.shipping.approval import Approval


async def task(
    env: dict[str, str], cwd: Path, title: str, *steps: str
) -> subprocess.CompletedProcess[str]:
    started = await run_cli(env, "task", REPO, title, "--agent-command", agent(*steps), cwd=cwd)
    assert started.returncode == 0, shown(started)
    return started


async def serving(up_number: int, tmp_path: Path) -> None:
    await until(lambda: "Worker polling" in up_log(tmp_path, up_number), "up's worker")


@pytest.mark.slow
@pytest.mark.timeout(300)
async def test_everything_killed_at_once_running_queued_and_held_work_all_resume(
    tmp_path: Path, gates: Path, origin: Path, start_up: StartUp, resume_clock: ResumeClock
) -> None:
    # Two job slots and the gates the agents wait for (codedesk.toml in the working directory
    # of `up` and of every command).
    (tmp_path / "codedesk.toml").write_text(
        f"max_workers = 2\nsandbox_read_paths = [{json.dumps(str(gates))}]\n"
    )
    home, port, ui_port = tmp_path / "home", free_port(), free_port()
    env = cli_env(CODEDESK_HOME=str(home), CODEDESK_HEARTBEAT_TIMEOUT="2s")
    up = start_up(home, port, ui_port)
    await serving(1, tmp_path)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)

    tags = {name: agent_tag() for name in ("running", "held")}
    go = gates / "go"
    running = started_number(
        await task(
            env,
            tmp_path,
            "running",
            "mark",
            tags["running"],
            f"wait:{go}",
            "write:running.txt=1",
            "commit:running",
        )
    )
    held = started_number(
        await task(
            env,
            tmp_path,
            "held",
            "mark",
            tags["held"],
            "hold:" + json.dumps(PUSH),
            "write:held.txt=1",
            "commit:held",
        )
    )
    queued_out = await task(env, tmp_path, "queued", "mark", "write:queued.txt=1", "commit:queued")
    found = re.search(r"^job (\d+) queued at position 1 ", queued_out.stdout, re.MULTILINE)
    assert found, shown(queued_out)
    queued = int(found[1])

    address = f"127.0.0.1:{port}"
    client = await Client.connect(address, data_converter=pydantic_data_converter)
    ident = await open_approval(client)
    agents = [
        await running_agent(home, number, tags[name])
        for name, number in (("running", running), ("held", held))
    ]

    # Everything at once: `up` with its worker, the Temporal server it started, the agents.
    server_pids = servers_on(home / DB_FILE)
    assert server_pids, "up's server is not running"
    os.killpg(up.pid, signal.SIGKILL)
    for pid in server_pids:
        os.kill(pid, signal.SIGKILL)
    await asyncio.to_thread(up.wait, 10)
    await until(lambda: all(pid_dead(pid) for pid in server_pids + agents), "all to die")
    assert not job_runs(home, queued), "the queued job must not have started before the kill"

    resume_clock.restarted()
    start_up(home, port, ui_port)
    await serving(2, tmp_path)
    client = await Client.connect(address, data_converter=pydantic_data_converter)

    # The held call's approval is the one opened before the crash; the retried agent joins it.
    listed = await run_cli(env, "approvals", "--json", cwd=tmp_path)
    assert listed.returncode == 0, shown(listed)
    assert [item["approval_id"] for item in json.loads(listed.stdout)] == [ident], listed.stdout
    assert await holds_joined(client, held, home) == 2
    approved = await run_cli(env, "approve", ident, cwd=tmp_path)
    assert approved.returncode == 0, shown(approved)
    go.touch()

    reports = {n: await report_of(client, n, tmp_path) for n in (running, held, queued)}
    for number in reports:
        await resume_clock.report_job(client, number)
    assert {n: r.outcome for n, r in reports.items()} == dict.fromkeys(
        reports, JobOutcome.INTEGRATED
    ), reports
    assert [reports[n].agent_attempts for n in (running, held, queued)] == [2, 2, 1], reports
    assert job_runs(home, queued) == [f"run {queued} interrupted=0"]
    clone = home / "shelf" / "acme" / "api"
    subjects = git(clone, "log", "--format=%s").splitlines()
    assert sorted(subjects) == ["held", "initial", "queued", "running"], subjects
    outcome = await client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.APPROVED
    shown_job = await run_cli(env, "show", str(held), "--json", cwd=tmp_path)
    assert shown_job.returncode == 0, shown(shown_job)
    assert json.loads(shown_job.stdout)["job"]["report"]["outcome"] == "integrated"
    assert_no_leftovers(clone, *agents, *[pid for tag in tags.values() for pid in tagged_pids(tag)])
    await assert_a_later_job_runs(env, tmp_path)
