"""A held call nobody answers within the live window suspends the real codex (its preset's proven
release, in bubblewrap, against a scripted fake of its model): codex cannot defer a call, so its
hook refuses it with a note to stop, codedesk ends the run with its thread kept, and the job
waits with no process and its desk slot free. The answer resumes the thread (`codex exec resume`)
with the outcome as its prompt: approved, the call runs once, without a second card; declined,
it never runs, and the model reads why."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path

import pytest

from desk.agents.held import STOPPED
from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, HoldVerdict, Principal
from desk.payloads.jobs import JobOutcome, JobPhase, JobReport, JobStatus
from surfaces.clients.approval_client import ApprovalsClient, ApprovalState
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agent_pids import job_processes
from tests.helpers.real_agents.other_clis import NOTES, REPO, make_codex_home
from tests.helpers.real_agents.other_clis import agent_env as agent_env
from tests.helpers.real_agents.other_clis import fake as fake
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually
from tests.real_agents import HEARTBEAT_TIMEOUT
from tests.real_agents.agent_env import on_path
from tests.real_agents.fake_anthropic import IfTold, Say, Step
from tests.real_agents.fake_openai import FakeOpenAI, shell
from tests.real_agents.install import agent_cache, release_cli

pytestmark = pytest.mark.timeout(600)
TASK = "add notes, then reset and log it"
HELD = "git reset --hard && echo ran >> ran.log"
"""Held (`git reset --hard` is destructive); what it appends shows how often it ran."""
LOGGED = "git add ran.log && git commit -q -m 'Log the run' && echo ok"
APPROVED = "was approved by"


def script() -> list[Step]:
    """Notes, then the held call; resumed, the model runs it again only if it was approved."""
    return [
        shell(NOTES),
        shell(HELD),
        IfTold(APPROVED, shell(HELD), Say("I left it, as I was told.")),
        IfTold(APPROVED, shell(LOGGED), Say("I left it, as I was told.")),
        Say("Done."),
    ]


@pytest.fixture
def settings(settings: DeskSettings, fake: FakeOpenAI) -> DeskSettings:
    # A live window of 2 s; the hold wait stays long, so only a suspension ends the wait.
    return suspending(settings, fake)


def suspending(settings: DeskSettings, fake: FakeOpenAI) -> DeskSettings:
    """The real-CLI settings (the fake's port through the egress proxy, the installed CLIs
    readable in the sandbox) with a live window of 2 s and a long hold wait."""
    port = fake.url.split(":")[2].split("/")[0]
    return settings.model_copy(
        update={
            "sandbox_egress": ["*", f"127.0.0.1:{port}"],
            "heartbeat_timeout": HEARTBEAT_TIMEOUT,
            "sandbox_read_paths": [*settings.sandbox_read_paths, str(agent_cache())],
            "hold_live_wait": timedelta(seconds=2),
            "hold_wait": timedelta(minutes=10),
        }
    )


async def suspended_codex(
    fake: FakeOpenAI,
    desk: DeskClient,
    origin: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, ApprovalState, JobStatus]:
    """Start the codex job; once its held call is unanswered past the live window, it is
    suspended: its approval open, no process of it alive, its desk slot free."""
    on_path(monkeypatch, release_cli("codex"))
    fake.steps = script()
    make_codex_home(tmp_path / "codex-home", fake.url, monkeypatch)
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, TASK, agent_command=preset_command("codex"))
    approvals = ApprovalsClient(desk.client)
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
    assert HELD in current.suspended_for, current
    await eventually(
        lambda: job_processes(current.worktree), lambda left: left == [], "codex to end"
    )
    await eventually(
        desk.desk_state,
        lambda state: (
            state is not None and number in state.suspended and number not in state.running
        ),
        "the desk to see the slot lent",
    )
    # Nothing runs the call meanwhile: the model was told to stop, and codex is gone.
    await asyncio.sleep(1)
    assert job_processes(current.worktree) == [], "a process of the suspended job lives"
    assert not (Path(current.worktree) / "ran.log").exists()
    return number, held, current


def log_of(report: JobReport) -> str:
    return Path(report.log_path).read_text() if report.log_path else ""


def resumed_requests(fake: FakeOpenAI) -> list[str]:
    """The requests of the resumed thread (those that carry the answer), as text."""
    return [
        json.dumps(body["input"]) for body in fake.conversation() if STOPPED in json.dumps(body)
    ]


async def test_an_approval_resumes_codexs_thread_and_the_call_runs_once(
    fake: FakeOpenAI,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    number, held, _ = await suspended_codex(fake, desk, origin, tmp_path, monkeypatch)

    owner = Principal(id=settings.owner)
    await ApprovalsClient(desk.client).answer(held.approval_id, Decision.APPROVE, owner)
    report = await awaited(desk.wait(number), "the job's report")
    log = log_of(report)
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert report.agent_suspended == 1, report
    assert [commit.subject for commit in report.commits] == ["Add notes", "Log the run"], log
    clone = settings.shelf_dir / "acme" / "api"
    assert (clone / "ran.log").read_text() == "ran\n"  # the approved call ran exactly once
    # One card for the call: the resumed thread's identical call used the approval.
    assert await ApprovalsClient(desk.client).open_approvals() == []
    assert f"codedesk: suspended until approval {held.approval_id} settles" in log, log
    assert "codedesk: resuming session" in log and "after a suspension" in log, log
    resumed = resumed_requests(fake)
    assert resumed, [json.dumps(body)[-400:] for body in fake.conversation()]
    # The thread itself, resumed: the task and the earlier calls, then the answer, once.
    assert TASK in resumed[0] and "Add notes" in resumed[0] and HELD in resumed[0], resumed[0]
    assert resumed[0].count(STOPPED) == 1 and APPROVED in resumed[0], resumed[0][-2000:]
    assert "codedesk: ending the agent for held call" in log, log


async def test_a_decline_resumes_codexs_thread_and_the_call_never_runs(
    fake: FakeOpenAI,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    number, held, _ = await suspended_codex(fake, desk, origin, tmp_path, monkeypatch)
    owner = Principal(id=settings.owner)
    await ApprovalsClient(desk.client).answer(held.approval_id, Decision.DECLINE, owner)
    report = await awaited(desk.wait(number), "the job's report")
    log = log_of(report)
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert report.agent_suspended == 1, report
    assert [commit.subject for commit in report.commits] == ["Add notes"], log
    assert not (settings.shelf_dir / "acme" / "api" / "ran.log").exists()
    assert git(settings.shelf_dir / "acme" / "api", "status", "--porcelain") == ""
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.DECLINED], report
    [resumed, *_] = resumed_requests(fake)
    assert "was declined by" in resumed and "do not retry it" in resumed, resumed[-2000:]
    assert report.output.strip().endswith("I left it, as I was told."), report.output
