"""A worker SIGKILLed while the real codex's job is suspended on a held call (issue 45): nothing of
the job runs on it, the answer is given while no worker runs at all, and once a worker comes back
the job resumes codex's thread once (`codex exec resume`) with the answer as its prompt; the
approved call runs once, without a second card."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from desk.agents.held import STOPPED
from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, Principal
from desk.names import DESK_WORKFLOW_ID, job_workflow_id
from desk.payloads.jobs import JobOutcome, JobPhase, JobStatus
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import REPO, kill
from tests.helpers.agent_pids import job_processes
from tests.helpers.agent_runs.codex_resume import worker_env
from tests.helpers.cli_helpers import run_cli, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually
from tests.real_agents.fake_anthropic import IfTold, Say
from tests.real_agents.fake_openai import FakeOpenAI, serving, shell
from workers.worker import WORKFLOWS

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap here"),
]
TASK = "add notes, then reset and log it"
HELD = "git reset --hard && echo ran >> ran.log"
APPROVED = "was approved by"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    script = [
        shell("echo notes > NOTES.md && git add NOTES.md && git commit -q -m 'Add notes'"),
        shell(HELD),  # held: nobody answers within the live window
        IfTold(APPROVED, shell(HELD), Say("I left it.")),
        IfTold(APPROVED, shell("git add ran.log && git commit -q -m 'Log the run'")),
        Say("Done."),
    ]
    with serving(FakeOpenAI(steps=script)) as running:
        yield running


async def test_an_answer_given_while_no_worker_runs_resumes_the_suspended_codex_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    fake: FakeOpenAI,
) -> None:
    env = worker_env(settings, fake, tmp_path)
    env.update(CODEDESK_HOLD_LIVE_WAIT="2s", CODEDESK_MAX_WORKERS="1")
    first: subprocess.Popen[bytes] = start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    started = await run_cli(
        env, "task", REPO, TASK, "--agent-command", preset_command("codex"), cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    desk = DeskClient(client, settings)
    approvals = ApprovalsClient(client)
    [held] = await eventually(
        approvals.open_approvals,
        lambda states: [state for state in states if HELD in json.dumps(state.request.input)],
        "the held call's approval",
    )

    async def status() -> JobStatus:
        return (await desk.status(number))[1]

    current = await eventually(
        status, lambda seen: seen.phase == JobPhase.SUSPENDED, "the job to suspend"
    )
    await eventually(
        lambda: job_processes(current.worktree), lambda left: left == [], "codex to end"
    )
    asked_before = len(fake.conversation())

    await kill(first)  # no worker runs now: the answer waits in the approval's history
    owner = Principal(id=settings.owner)
    _, by_signal = await approvals.answer(held.approval_id, Decision.APPROVE, owner)
    assert by_signal, "a worker took the answer"
    assert len(fake.conversation()) == asked_before and job_processes(current.worktree) == []
    start_worker(env)

    report = await awaited(desk.wait(number), "the job's report")
    log = Path(report.log_path).read_text()
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert report.agent_suspended == 1, report
    assert [commit.subject for commit in report.commits] == ["Add notes", "Log the run"], log
    clone = settings.shelf_dir / "acme" / "api"
    assert (clone / "ran.log").read_text() == "ran\n"  # the approved call ran once
    # Resumed once: one thread resumed with the answer, which it read once.
    assert log.count("after a suspension") == 1, log
    told = [body for body in fake.conversation() if STOPPED in json.dumps(body)]
    assert told and all(json.dumps(body["input"]).count(STOPPED) == 1 for body in told), told
    assert await approvals.open_approvals() == []
    assert git(clone, "status", "--porcelain") == ""
    await replays_and_is_kept(client, number)


async def replays_and_is_kept(client: Client, number: int) -> None:
    """The job's history replays on today's workflows; with CODEDESK_RECORD_HISTORIES set it is
    kept as a recording (tests/histories, never overwritten), which every later change must
    replay too."""
    job = await client.get_workflow_handle(job_workflow_id(number)).fetch_history()
    desk = await client.get_workflow_handle(DESK_WORKFLOW_ID).fetch_history()
    replayer = Replayer(workflows=list(WORKFLOWS), data_converter=pydantic_data_converter)
    for history in (job, desk):
        result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
        assert result.replay_failure is None, f"{history.workflow_id}: {result.replay_failure}"
    if os.environ.get("CODEDESK_RECORD_HISTORIES"):
        from tests.histories.record import keep

        keep(Path(__file__).parents[2] / "histories" / "coding_job_codex_suspended.json", job)
