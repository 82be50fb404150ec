"""A held call nobody answers within the live window suspends the real Claude Code (issue 28):
the hook defers the call, the CLI ends, and the job waits for the approval with no process and
no desk slot, across a SIGKILLed worker; the answer resumes the session (`claude -p --resume`),
whose hook gets it: approved, codedesk ships the push once; declined, the push never runs."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, HoldVerdict, Principal
from desk.names import DESK_WORKFLOW_ID, job_workflow_id
from desk.payloads.jobs import JobOutcome, JobPhase, JobStatus
from surfaces.clients.approval_client import ApprovalsClient, ApprovalState
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import REPO, kill
from tests.helpers.agent_pids import job_processes
from tests.helpers.agent_runs.session_resume import fresh_tasks, worker_env
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually
from tests.real_agents.fake_anthropic import FakeAnthropic, Say, ToolCall, bash, serving
from tests.real_agents.install import release_cli
from workers.worker import WORKFLOWS

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap here"),
]
TASK = "add a notes file, commit it and push it"
PUSH = "git push origin HEAD:main"
CLAUDE_PACKAGE = "@anthropic-ai/claude-code"


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    script = [
        ToolCall("Write", {"file_path": "NOTES.md", "content": "notes\n"}),
        bash("git add -A && git commit -q -m 'Add notes'"),
        bash(PUSH),  # held: nobody answers within the live window
        Say("Committed the notes; the push is codedesk's."),
    ]
    with serving(FakeAnthropic(steps=script)) as running:
        yield running


def suspending_env(
    settings: DeskSettings, fake: FakeAnthropic, tmp_path: Path, release: str = "pinned"
) -> dict[str, str]:
    """The worker's environment: a live window of 2 s, one desk slot, the preset's proven
    Claude Code (or the registry's newest, first on the PATH)."""
    env = worker_env(settings, fake, tmp_path)
    env.update(CODEDESK_HOLD_LIVE_WAIT="2s", CODEDESK_MAX_WORKERS="1")
    if release == "newest":
        newest = release_cli("claude", "newest")
        env["PATH"] = f"{newest.parent}:{env['PATH']}"
    return env


async def suspended_job(
    desk: DeskClient, env: dict[str, str], origin: Path, tmp_path: Path
) -> tuple[int, ApprovalState, JobStatus]:
    """Start the job; once its push is held and unanswered past the live window, the job is
    suspended: its approval open, no process of it alive, its desk slot free."""
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    started = await run_cli(
        env, "task", REPO, TASK, "--agent-command", preset_command("claude"), cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    approvals = ApprovalsClient(desk.client)
    [held] = await eventually(
        approvals.open_approvals,
        lambda states: [state for state in states if state.request.ships_to == "main"],
        "the held push's approval",
    )

    async def status() -> JobStatus:
        return (await desk.status(number))[1]

    current = await eventually(
        status, lambda seen: seen.phase == JobPhase.SUSPENDED, "the job to suspend"
    )
    assert PUSH in current.suspended_for, current
    assert job_processes(current.worktree) == [], "a process of the suspended job lives"
    # The job lends its slot after it says it is suspended (and tells its thread): the desk
    # hears it a moment later.
    await eventually(
        desk.desk_state,
        lambda state: (
            state is not None and number in state.suspended and number not in state.running
        ),
        "the desk to see the slot lent",
    )
    shown_job = await run_cli(env, "show", str(number), cwd=tmp_path)
    assert "waiting for approval, suspended: " in shown_job.stdout, shown(shown_job)
    return number, held, current


async def test_an_approval_after_a_worker_restart_resumes_the_session_and_ships_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    fake: FakeAnthropic,
) -> None:
    env = suspending_env(settings, fake, tmp_path)
    first: subprocess.Popen[bytes] = start_worker(env)
    desk = DeskClient(client, settings)
    number, held, _ = await suspended_job(desk, env, origin, tmp_path)
    asked_before = len(fake.conversation())

    await kill(first)  # nothing of the job runs on it: the restart changes nothing
    start_worker(env)
    owner = Principal(id=settings.owner)
    await ApprovalsClient(client).answer(held.approval_id, Decision.APPROVE, owner)

    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.agent_suspended == 1, report
    assert len(fresh_tasks(fake)) == 1, fake.conversation()  # the task was sent once
    resumed = fake.conversation()[asked_before]
    assert "git push origin HEAD:main" in str(resumed["messages"]), resumed  # its earlier turns
    told = fake.tool_results()[-1]
    assert "codedesk will ask to push your commits to main" in told, told
    log = Path(report.log_path).read_text()
    assert f"codedesk: suspended until approval {held.approval_id} settles" in log, log
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines().count("Add notes") == 1

    # The push is codedesk's, once: an owner approves the SHA the report names.
    [shipped] = report.ship_requests
    approvals = ApprovalsClient(client)
    [push] = await eventually(
        approvals.open_approvals,
        lambda states: [s for s in states if s.approval_id == shipped.push_approval_id],
        "the push of the integrated SHA",
    )
    await approvals.answer(push.approval_id, Decision.APPROVE, owner)
    await eventually(
        lambda: git(origin, "rev-parse", "main"), lambda head: head == report.head, "the push"
    )
    await replays_and_is_kept(client, number)


async def replays_and_is_kept(client: Client, number: int) -> None:
    """The job's and the desk's histories, suspension and all, replay on today's workflows; with
    CODEDESK_RECORD_HISTORIES set they are kept as recordings (tests/histories, never
    overwritten), which every later change must replay too."""
    job = await client.get_workflow_handle(job_workflow_id(number)).fetch_history()
    desk = await client.get_workflow_handle(DESK_WORKFLOW_ID).fetch_history()
    kinds = {event.event_type for event in desk.events}
    assert EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED in kinds
    replayer = Replayer(workflows=list(WORKFLOWS), data_converter=pydantic_data_converter)
    for history in (job, desk):
        result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
        assert result.replay_failure is None, f"{history.workflow_id}: {result.replay_failure}"
    if os.environ.get("CODEDESK_RECORD_HISTORIES"):
        from tests.histories.record import keep

        folder = Path(__file__).parents[2] / "histories"
        keep(folder / "coding_job_suspended.json", job)
        keep(folder / "desk_suspended.json", desk)


@pytest.mark.parametrize("release", ["pinned", "newest"])
async def test_a_decline_resumes_the_agent_with_the_refusal_and_frees_the_slot_meanwhile(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    fake: FakeAnthropic,
    release: str,
) -> None:
    env = suspending_env(settings, fake, tmp_path, release)
    start_worker(env)
    desk = DeskClient(client, settings)
    before = git(origin, "rev-parse", "main")
    number, held, _ = await suspended_job(desk, env, origin, tmp_path)

    # The desk has one slot, and the suspended job does not hold it: another job runs to its end.
    other = await desk.start_job(REPO, "say hi", agent_command=agent("say:hi"))
    assert (await awaited(desk.wait(other), "the other job")).outcome == JobOutcome.NOTHING

    owner = Principal(id=settings.owner)
    await ApprovalsClient(client).answer(held.approval_id, Decision.DECLINE, owner)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.agent_suspended == 1, report
    told = fake.tool_results()[-1]
    assert "declined" in told.lower() and "Leave shipping to codedesk" in told, told
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.DECLINED], report
    assert report.ship_requests == [], report
    assert git(origin, "rev-parse", "main") == before  # the push never ran
    assert len(fresh_tasks(fake)) == 1, fake.conversation()


async def test_a_suspended_job_cancelled_ends_and_withdraws_its_approval(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    fake: FakeAnthropic,
) -> None:
    env = suspending_env(settings, fake, tmp_path)
    start_worker(env)
    desk = DeskClient(client, settings)
    before = git(origin, "rev-parse", "main")
    number, held, _ = await suspended_job(desk, env, origin, tmp_path)
    cancelled = await run_cli(env, "cancel", str(number), cwd=tmp_path)
    assert cancelled.returncode == 0, shown(cancelled)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.CANCELLED, report
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.PENDING], report
    open_ids = [state.approval_id for state in await ApprovalsClient(client).open_approvals()]
    assert held.approval_id not in open_ids, open_ids
    await eventually(
        desk.desk_state,
        lambda state: state is not None and number not in state.suspended,
        "the desk to forget the cancelled job",
    )
    assert git(origin, "rev-parse", "main") == before
