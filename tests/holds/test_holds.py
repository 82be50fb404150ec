"""Holds through real jobs: the job classifies, asks one `Approval` per call, and reports."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from desk.config.settings import DeskSettings, load_settings
from desk.holds.approvals import Decision, HoldVerdict, HoldWhy, OutcomeKind, Principal, approval_id
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.render.words.hold_answers import answer_words
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from tests.helpers.holds.asked_holds import REPO, ask, hold_step, runs_of
from tests.helpers.job_waits import open_ids, working
from tests.helpers.repos import git
from tests.helpers.waiting import awaited
from workers.desk_handle import configure_desk
from workers.worker import build_worker
from workflows.shipping.approval import Approval

PUSH = {"command": "git push origin main"}


async def test_identical_holds_join_one_approval_and_one_withdrawal_answers_both(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "wait", agent_command=agent("sleep:30"))
    await working(desk, number)
    approvals = ApprovalsClient(desk.client)

    call = {"command": "git push origin main", "description": "Push"}
    first = asyncio.create_task(ask(desk, number, "Bash", call))
    # The same call, its keys in another order: the canonical input is the same.
    same = {"description": "Push", "command": "git push origin main"}
    second = asyncio.create_task(ask(desk, number, "Bash", same))
    await open_ids(approvals)
    await asyncio.sleep(0.5)  # time enough for a second approval, if one were (wrongly) opened
    listed = [state.approval_id for state in await approvals.open_approvals()]
    ident = approval_id(f"job-{number}", "Bash", call)
    assert listed == [ident]
    assert not first.done() and not second.done()

    await approvals.withdraw(ident, "not today", "local:test")
    answers = await awaited(asyncio.gather(first, second), "both calls' answers")
    for answer in answers:
        assert answer.verdict == HoldVerdict.WITHDRAWN, answer
        assert answer.approval_id == ident
        assert answer.why == HoldWhy.WITHDRAWN and answer.note == "not today" and not answer.reason
        said = answer_words(answer.model_dump(mode="json"))
        assert "not today" in said and "Do not retry" in said
        assert not answer.may_run
    assert len(await runs_of(desk.client, ident)) == 1

    # Withdrawn: the identical call is never held again. It is refused as withdrawn at once,
    # without a new approval (no card), and the agent is told so.
    third = await ask(desk, number, "Bash", same, wait=30)
    assert third.verdict == HoldVerdict.WITHDRAWN and third.why == HoldWhy.WITHDRAWN, third
    assert third.approval_id == ident and third.note == "not today" and not third.may_run
    assert "withdrawn" in answer_words(third.model_dump(mode="json"))
    assert len(await runs_of(desk.client, ident)) == 1
    assert await approvals.open_approvals() == []

    await desk.cancel(number)  # the agent sleeps on; its held calls are in the report all the same
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.CANCELLED, report
    # Two holds that joined one approval are one held call in the report.
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.WITHDRAWN]
    assert [call.approval_id for call in report.held_calls] == [ident]
    assert report.held_calls[0].note == "not today"


async def test_harmless_calls_run_without_an_approval(
    desk: DeskClient, origin: Path, tmp_path: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    go = gates / "go"
    number = await desk.start_job(REPO, "look", agent_command=agent(f"wait:{go}"))
    worktree = await working(desk, number)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("Bash", {"command": "git status"}),
        ("Bash", {"command": f"cat {tmp_path}/anything > /dev/null"}),
        ("Bash", {"command": "echo hi > notes.txt && git add notes.txt"}),
        ("Write", {"file_path": f"{worktree}/src/new.py", "content": "x = 1\n"}),
        ("Edit", {"file_path": "README.md", "old_string": "a", "new_string": "b"}),
        ("Read", {"file_path": "/etc/passwd"}),
    ]
    for tool, input in calls:
        answer = await ask(desk, number, tool, input)
        assert answer.verdict == HoldVerdict.ALLOWED, (tool, input, answer)
        assert answer.may_run and not answer.approval_id
    listing = [item async for item in desk.client.list_workflows("WorkflowType = 'Approval'")]
    assert listing == []
    go.touch()
    report = await desk.wait(number)
    assert report.held_calls == []


async def test_a_write_outside_the_worktree_is_held_and_unanswered_at_the_end(
    desk: DeskClient, origin: Path, tmp_path: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    go = gates / "go"
    number = await desk.start_job(REPO, "escape", agent_command=agent(f"wait:{go}"))
    worktree = await working(desk, number)
    outside = {"file_path": str(tmp_path / "elsewhere.txt"), "content": "x"}
    answer = await ask(desk, number, "Write", outside, wait=0.5)
    assert answer.verdict == HoldVerdict.PENDING, answer
    assert answer.classes == ["outside_workspace"]
    assert not answer.may_run
    escape = {"file_path": f"{worktree}/../../escape.txt", "content": "x"}
    assert (await ask(desk, number, "Write", escape, wait=0.2)).verdict == HoldVerdict.PENDING
    redirect = {"command": f"echo x > {tmp_path}/out.txt"}
    shell = await ask(desk, number, "Bash", redirect, wait=0.2)
    assert shell.classes == ["outside_workspace"], shell

    approvals = ApprovalsClient(desk.client)
    ident = approval_id(f"job-{number}", "Write", outside)
    assert answer.approval_id == ident
    assert ident in await open_ids(approvals, 3)

    go.touch()
    report = await desk.wait(number)
    assert not (tmp_path / "elsewhere.txt").exists()
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.PENDING] * 3
    assert ident in {call.approval_id for call in report.held_calls}
    outcome = await desk.client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.WITHDRAWN
    assert outcome.note == "The job has ended."
    assert await approvals.open_approvals() == []


async def test_a_hold_after_the_agent_finished_is_declined(desk: DeskClient, origin: Path) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "quick", agent_command=agent("say:done"))
    await desk.wait(number)
    # A closed job cannot be asked at all; the hold seam turns that into a refusal.
    with pytest.raises(Exception, match="(?i)completed"):
        await ask(desk, number, "Bash", PUSH)


@pytest.fixture
async def short_hold_desk(
    settings: DeskSettings, client: Client
) -> AsyncIterator[tuple[DeskClient, DeskSettings]]:
    """A desk whose `hold_wait` is 2 s, so an unanswered hold gives up quickly."""
    short = load_settings(**{**settings.model_dump(), "hold_wait": "2s"})
    async with build_worker(client, short):
        await configure_desk(client, short)
        yield DeskClient(client, short), short


async def test_an_unanswered_hold_skips_the_call_and_is_listed(
    short_hold_desk: tuple[DeskClient, DeskSettings], origin: Path
) -> None:
    desk, settings = short_hold_desk
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO,
        "push it",
        agent_command=agent(
            hold_step("Bash", PUSH), "write:pushed.txt=yes", "write:other.txt=o", "commit:rest"
        ),
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert "hold refused (2)" in report.output, report.output
    assert "skipped 'write:pushed.txt=yes' (held)" in report.output
    clone = settings.shelf_dir / "acme" / "api"
    assert (clone / "other.txt").exists() and not (clone / "pushed.txt").exists()
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.PENDING]
    ident = approval_id(f"job-{number}", "Bash", PUSH)
    assert report.held_calls[0].approval_id == ident
    outcome = await desk.client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.WITHDRAWN


async def test_a_declined_hold_tells_the_agent_not_to_retry(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO,
        "push it",
        agent_command=agent(hold_step("Bash", PUSH), "write:pushed.txt=yes", "commit:after"),
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    result, _ = await approvals.answer(ident, Decision.DECLINE, Principal(id=settings.owner))
    assert result.counted
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.NOTHING, report
    [held] = report.held_calls
    assert held.verdict == HoldVerdict.DECLINED
    assert held.tool == "Bash" and held.summary == "Run: git push origin main"
    assert held.approval_id == ident
    assert "Do not retry this call or work around it" in report.output
    assert "skipped 'write:pushed.txt=yes' (held)" in report.output


async def test_the_work_budget_excludes_the_wait_for_a_person(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    # The budget leaves the agent's own work (a hook that is a Python process, a commit) room on
    # a busy machine; the person's wait alone is longer than the whole budget.
    budget = timedelta(seconds=8)
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO,
        "push, then finish",
        agent_command=agent(
            hold_step("Bash", PUSH), "sleep:1", "write:done.txt=ok", "commit:finished"
        ),
        budget=budget,
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    approval = desk.client.get_workflow_handle_for(Approval.run, ident)
    opened_at = (await approval.query(Approval.current)).opened_at
    assert opened_at is not None
    # The person answers only after the whole budget, by the clock the server stamps history
    # with (this host's): the test waits for that moment instead of guessing how long it takes.
    while datetime.now(UTC) <= opened_at + budget:
        await asyncio.sleep(0.1)
    approved = await run_cli(settings_env(settings), "approve", ident, cwd=tmp_path)
    assert approved.returncode == 0, shown(approved)
    outcome = await approval.result()
    assert outcome.kind == OutcomeKind.APPROVED and outcome.at is not None
    assert outcome.at - opened_at > budget  # the wait for a person, from its history
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["finished"]
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "log", "-1", "--format=%s") == "finished"


async def test_the_budget_still_stops_an_agent_that_works_too_long(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO,
        "harmless hold, then too much work",
        agent_command=agent(hold_step("Bash", {"command": "git status"}), "sleep:20"),
        budget=timedelta(seconds=3),
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.TIMED_OUT, report


async def test_cancelling_a_job_while_a_hold_waits_withdraws_the_approval(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "push it", agent_command=agent(hold_step("Bash", PUSH), "write:pushed.txt=yes")
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    await desk.cancel(number)
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.CANCELLED, report
    assert ident in {call.approval_id for call in report.held_calls}
    outcome = await desk.client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.WITHDRAWN
    assert await approvals.open_approvals() == []
    # The waiting hold got its answer before the job closed: no task failed on an unfinished
    # update, and every accepted hold completed.
    kinds = [event.event_type async for event in desk.job(number).fetch_history_events()]
    assert EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in kinds
    assert kinds.count(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED) == kinds.count(
        EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED
    )
