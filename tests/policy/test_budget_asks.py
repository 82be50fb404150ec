"""The host's word on budget pauses (issue 47): whether a job may pause at its budget and ask at
all (`CODEDESK_BUDGET_ASKS`), how often (`CODEDESK_BUDGET_ASKS_MAX`), and that "go on" never
passes the host's ceiling; a requester can loosen none of it. A scripted agent names a session
as Claude Code's stream does and then works until its budget stops it; its "go on" run starts
over (it resumes nothing), which is all these tests need of it."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from desk.decisions.job_policy import judge_job
from desk.errors import BudgetPauseError
from desk.holds.approvals import Decision, Principal
from desk.holds.budget_cards import GO_ON_MESSAGE, BudgetAnswer, BudgetReason
from desk.payloads.jobs import JobInput, JobOutcome
from desk.policy.host import HostPolicy, JobAsk
from desk.records.repo_setup import SetRepoSetup
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from surfaces.render.layout.work_rounds.budget_layout import budget_effect
from tests.helpers.agents import agent
from tests.helpers.desks import host_policy
from tests.helpers.holds.asked_holds import REPO
from tests.helpers.real_agents.budget_pauses import budget_card, holds_no_process, paused
from tests.helpers.waiting import awaited, eventually

BUDGET = timedelta(seconds=2)
SESSION = 'say:{"type": "system", "subtype": "init", "session_id": "budget-session-1"}'


def works_on(gates: Path) -> str:
    """An agent that names its session, then works until its budget stops it."""
    return agent(SESSION, f"wait:{gates / 'never'}")


async def approve(desk: DeskClient, ident: str) -> None:
    by = Principal(id=desk.settings.owner, name="alice")
    await ApprovalsClient(desk.client).answer(ident, Decision.APPROVE, by)


async def test_with_asks_off_a_budget_ends_the_job_as_before(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    await host_policy(desk, budget_asks=False)
    number = await desk.start_job(REPO, "work", agent_command=works_on(gates), budget=BUDGET)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.TIMED_OUT, report
    assert report.budget_pauses == []


async def test_after_the_last_ask_the_budget_ends_the_job_as_before(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    await host_policy(desk, budget_asks_max=1)
    number = await desk.start_job(REPO, "work", agent_command=works_on(gates), budget=BUDGET)
    with pytest.raises(BudgetPauseError, match="not waiting at a budget card"):
        await desk.finish(number)  # it works: nothing to finish yet
    status = await paused(desk, number)
    holds_no_process(status.worktree)
    card = await budget_card(desk)
    assert card.request.budget is not None
    assert (card.request.budget.pause, card.request.budget.asks_max) == (1, 1)

    await approve(desk, card.approval_id)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.TIMED_OUT, report
    [pause] = report.budget_pauses
    assert (pause.answer, pause.by) == (BudgetAnswer.GO_ON, "alice"), pause
    assert report.budget == 2 * BUDGET  # the second budget ran out too, and no card asked
    [note] = report.messages
    assert note.text == GO_ON_MESSAGE and note.by.name == "alice"


async def test_go_on_never_passes_the_hosts_ceiling_and_its_card_says_what_is_left(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    ceiling = BUDGET + BUDGET / 2
    await host_policy(desk, work_budget_max=ceiling)
    number = await desk.start_job(REPO, "work", agent_command=works_on(gates), budget=BUDGET)
    await paused(desk, number)
    card = await budget_card(desk)
    budget = card.request.budget
    assert budget is not None
    assert (budget.more_time, budget.time_left) == (BUDGET / 2, timedelta(0))
    assert "it is the last the host allows" in budget_effect(budget)

    await approve(desk, card.approval_id)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.TIMED_OUT, report
    assert len(report.budget_pauses) == 1  # room was left for no second card
    assert report.budget == ceiling


async def test_a_job_cancelled_at_its_budget_card_ends_cancelled_and_its_card_closes(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "work", agent_command=works_on(gates), budget=BUDGET)
    await paused(desk, number)
    await budget_card(desk)

    await desk.cancel(number)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.CANCELLED, report
    [pause] = report.budget_pauses
    assert pause.answer is None  # nobody answered: the report says so
    await eventually(
        ApprovalsClient(desk.client).open_approvals, lambda left: left == [], "no card"
    )


def spends(cost: str) -> str:
    """A step that reports money spent, as a CLI's usage report does."""
    return "usage:" + json.dumps({"output_tokens": 100, "cost": cost})


async def test_a_spend_limit_pauses_too_and_finish_integrates_what_was_committed(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    steps = (SESSION, "write:a.txt=a", "commit:a", spends("0.6"), "sleep:300")
    number = await desk.start_job(
        REPO, "spend", agent_command=agent(*steps), spend_limit=Decimal("0.5")
    )
    status = await paused(desk, number)
    holds_no_process(status.worktree)
    card = await budget_card(desk)
    budget = card.request.budget
    assert budget is not None and budget.reason == BudgetReason.MONEY
    assert (budget.more_money, budget.more_time, budget.money_left) == (Decimal("0.5"), None, None)
    assert budget.spent is not None and budget.spent.cost == Decimal("0.6")

    await desk.finish(number)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["a"]
    [pause] = report.budget_pauses
    assert (pause.reason, pause.answer) == (BudgetReason.MONEY, BudgetAnswer.FINISH)


async def test_go_on_at_a_spend_limit_stops_at_the_hosts_and_the_spend_adds_up(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    await host_policy(desk, job_spend_limit=Decimal("1"))
    steps = (SESSION, spends("0.6"), "sleep:300")
    number = await desk.start_job(
        REPO, "spend", agent_command=agent(*steps), spend_limit=Decimal("0.5")
    )
    await paused(desk, number)
    card = await budget_card(desk)
    budget = card.request.budget
    assert budget is not None
    # Half a dollar more would pass the host's dollar: the card gives what is left.
    assert (budget.more_money, budget.money_left) == (Decimal("0.4"), Decimal("0"))
    assert "it is the last the host allows" in budget_effect(budget)

    await approve(desk, card.approval_id)
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.FAILED, report  # as a spend limit always ended it
    assert "spent 1.2 USD" in report.reason, report
    assert report.usage is not None and report.usage.cost == Decimal("1.2")
    assert [pause.answer for pause in report.budget_pauses] == [BudgetAnswer.GO_ON]


def test_a_requester_cannot_loosen_the_hosts_asks() -> None:
    asked = JobInput(number=1, repo=REPO, task="t", agent_command="a", budget_asks=99)
    strict = HostPolicy(budget_asks=False, budget_asks_max=5)
    assert judge_job(asked, JobAsk(), strict).budget_asks == 0
    assert judge_job(asked, JobAsk(), HostPolicy(budget_asks_max=2)).budget_asks == 2


async def test_after_finish_here_a_failed_check_ends_the_job_and_never_goes_back_to_the_agent(
    desk: DeskClient, origin: Path
) -> None:
    """ "Finish here" is the job going on without its agent: the owner's check rounds (which
    send a failed check back to the agent) are not for it."""
    await desk.add_repo(REPO, str(origin))
    check = SetRepoSetup(repo=REPO, check="exit 3", check_retries=2)
    await RepoSetupClient(desk.client, desk.settings).configure(check)
    steps = (SESSION, "write:a.txt=a", "commit:a", spends("0.6"))
    number = await desk.start_job(
        REPO, "spend", agent_command=agent(*steps, "sleep:300"), spend_limit=Decimal("0.5")
    )
    await paused(desk, number)

    await desk.finish(number)  # at once: before its card has opened, as a person may
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.FAILED, report
    assert report.check is not None and report.check.exit_code == 3, report.check
    assert report.check_rounds == [], report.check_rounds
    assert report.messages == [], "nothing went back to the agent"
