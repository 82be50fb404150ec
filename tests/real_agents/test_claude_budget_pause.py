"""A job whose budget runs out pauses and asks (issue 47), on the real Claude Code (the `claude`
preset, pinned and newest, in bubblewrap where it works) against a scripted fake of its model:
the agent is stopped at its work budget with its session kept, the job holds no process and
no slot while its budget card waits, and the card's three answers do what they say: `approve`
resumes the same session (the model's next request carries the earlier turns) and the job
integrates, `finish` integrates what was committed at the pause, `decline` stops it with the
branch kept. A spend limit pauses the same way, its "go on" adding money."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, Principal
from desk.holds.budget_cards import GO_ON_MESSAGE, BudgetAnswer, BudgetReason
from desk.payloads.jobs import JobOutcome, JobPhase, JobStatus
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.real_agents.budget_pauses import budget_card, holds_no_process, paused
from tests.helpers.real_agents.claude_code import REPO, talking_settings
from tests.helpers.real_agents.claude_code import claude_binary as claude_binary
from tests.helpers.real_agents.claude_code import claude_env as claude_env
from tests.helpers.waiting import awaited, eventually
from tests.real_agents.fake_anthropic import MODEL, FakeAnthropic, IfTold, Say, ToolCall, bash, told

pytestmark = pytest.mark.timeout(400)
BUDGET = timedelta(seconds=20)
GO_ON_WORDS = GO_ON_MESSAGE[:40]
NOTES = ToolCall("Write", {"file_path": "NOTES.md", "content": "notes\n"})
COMMIT_NOTES = bash("git add -A && git commit -q -m 'Add notes'")
CHANGELOG = ToolCall("Write", {"file_path": "CHANGELOG.md", "content": "- notes\n"})
COMMIT_CHANGELOG = bash("git add -A && git commit -q -m 'Add the changelog'")


def forever(gates: Path) -> ToolCall:
    """A tool call that works until the job's budget stops it (its gate never opens)."""
    gate = gates / "never"
    return bash(f"while [ ! -e {gate} ]; do sleep 0.1; done")


TINY = Decimal("0.000001")
"""A spend limit the first answer's tokens reach, at PRICES."""
PRICES = f"{MODEL}=1/1"
"""The host's price table for the scripted model: a dollar a million tokens, in and out."""


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    return talking_settings(settings).model_copy(update={"max_workers": 1, "prices": PRICES})


async def test_approve_resumes_the_same_session_with_another_budget_and_the_job_integrates(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    gates: Path,
) -> None:
    fake = claude_env(
        [
            NOTES,
            COMMIT_NOTES,
            forever(gates),
            # A release may keep the stopped call in the resumed session as a turn of its own,
            # or not: either way the steps after the note write the changelog, then commit it.
            IfTold(GO_ON_WORDS, CHANGELOG),
            IfTold(GO_ON_WORDS, CHANGELOG),
            COMMIT_CHANGELOG,
            Say("Added the changelog too."),
        ]
    )
    info = await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "write notes", agent_command=preset_command("claude"), budget=BUDGET
    )
    status = await paused(desk, number)
    [pause] = status.budget_pauses
    assert (pause.reason, pause.answer, pause.more_time) == (BudgetReason.TIME, None, BUDGET)
    holds_no_process(status.worktree)
    # No slot: the desk's only one runs another job meanwhile.
    other = await desk.start_job(REPO, "say hello", agent_command=agent("say:hello"))
    assert (await awaited(desk.wait(other), "the other job")).outcome == JobOutcome.NOTHING
    card = await budget_card(desk)
    assert card.approval_id == pause.approval_id
    assert card.request.budget is not None and card.request.budget.more_time == BUDGET
    assert card.request.budget.time_left is not None  # the host allows more after it

    await ApprovalsClient(desk.client).answer(
        card.approval_id, Decision.APPROVE, Principal(id=settings.owner, name="alice")
    )
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["Add notes", "Add the changelog"]
    assert (Path(info.path) / "CHANGELOG.md").read_text() == "- notes\n"
    [answered] = report.budget_pauses
    assert (answered.answer, answered.by) == (BudgetAnswer.GO_ON, "alice"), answered
    # The same session: the request after the pause carries the earlier turns, then the note.
    # The same session: the first request that has the note carries the earlier turns (the
    # task, the notes written and committed before the pause), and the note once.
    after = next(body for body in fake.conversation() if told(body, GO_ON_WORDS))
    earlier = json.dumps(after["messages"])
    assert "write notes" in earlier and "NOTES.md" in earlier, earlier[-2000:]
    assert told(after, GO_ON_WORDS) == 1
    log = Path(report.log_path).read_text()
    assert "codedesk: resuming session" in log, log


async def test_finish_integrates_what_was_committed_at_the_pause(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    origin: Path,
    gates: Path,
) -> None:
    claude_env([NOTES, COMMIT_NOTES, forever(gates), Say("never reached")])
    info = await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "write notes", agent_command=preset_command("claude"), budget=BUDGET
    )
    status = await paused(desk, number)
    holds_no_process(status.worktree)
    card = await budget_card(desk)
    assert card.request.budget is not None
    assert [c.subject for c in card.request.budget.commits] == ["Add notes"]

    await desk.finish(number)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["Add notes"]
    assert (Path(info.path) / "NOTES.md").read_text() == "notes\n"
    [answered] = report.budget_pauses
    assert answered.answer == BudgetAnswer.FINISH, answered


async def test_decline_stops_the_job_as_its_budget_did_with_the_branch_kept(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    gates: Path,
) -> None:
    claude_env([NOTES, COMMIT_NOTES, forever(gates), Say("never reached")])
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "write notes", agent_command=preset_command("claude"), budget=BUDGET
    )
    await paused(desk, number)
    card = await budget_card(desk)

    await ApprovalsClient(desk.client).answer(
        card.approval_id, Decision.DECLINE, Principal(id=settings.owner)
    )
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.TIMED_OUT, report
    assert report.branch_kept, report
    assert [commit.subject for commit in report.commits] == ["Add notes"]
    [answered] = report.budget_pauses
    assert answered.answer == BudgetAnswer.STOP, answered


async def test_a_spend_limit_pauses_claude_and_go_on_resumes_the_session_with_more_money(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
) -> None:
    """A tiny spend limit: the first answer's tokens (priced by the host's table) reach it, the
    agent stops with its session kept and the card asks for money; "go on" adds as much again,
    the resumed session (the earlier turns in its next request) reaches that too, and the second
    card's "decline" stops the job as the limit did, the spend added up across the runs."""
    fake = claude_env([NOTES, COMMIT_NOTES, Say("done")])
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "write notes", agent_command=preset_command("claude"), spend_limit=TINY
    )
    status = await paused(desk, number)
    [pause] = status.budget_pauses
    assert (pause.reason, pause.more_money, pause.more_time) == (BudgetReason.MONEY, TINY, None)
    holds_no_process(status.worktree)
    first = await budget_card(desk)
    assert first.request.budget is not None and first.request.budget.more_money == TINY
    owner = Principal(id=settings.owner, name="alice")
    approvals = ApprovalsClient(desk.client)
    asked = len(fake.conversation())

    await approvals.answer(first.approval_id, Decision.APPROVE, owner)

    async def pauses() -> JobStatus:
        return (await desk.status(number))[1]

    again = await eventually(
        pauses,
        lambda seen: seen.phase == JobPhase.BUDGET_PAUSED and len(seen.budget_pauses) == 2,
        "the second pause",
    )
    resumed = fake.conversation()[asked]
    assert "write notes" in json.dumps(resumed["messages"]), "the same session, resumed"
    assert told(resumed, GO_ON_WORDS) == 1
    second = await budget_card(desk)
    await approvals.answer(second.approval_id, Decision.DECLINE, owner)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.FAILED, report
    assert [p.answer for p in report.budget_pauses] == [BudgetAnswer.GO_ON, BudgetAnswer.STOP]
    assert report.usage is not None and report.usage.cost is not None
    assert report.usage.cost >= 2 * TINY, report.usage
    assert again.budget_pauses[0].by == "alice"
