"""A budget card and a report's budget pauses in every target (issue 47): what the job did so
far, what it asked for, what each answer gives and how much more the host allows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from desk.holds.approvals import ApprovalRequest, ApprovalState
from desk.holds.budget_cards import (
    BudgetAnswer,
    BudgetCard,
    BudgetCommit,
    BudgetPause,
    BudgetReason,
)
from desk.payloads.jobs import JobOutcome, JobReport
from desk.usage.tally import Usage
from surfaces.render.discord.embeds import card_embed
from surfaces.render.layout.approval_layout import approval_card
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain

IDENT = "approval-job-7-0123456789abcdef"
CARD = BudgetCard(
    job=7,
    repo="acme/api",
    task="refactor the parser",
    reason=BudgetReason.TIME,
    pause=1,
    asks_max=3,
    worked=timedelta(seconds=21),
    budget=timedelta(seconds=20),
    spent=Usage(output_tokens=100, cost=Decimal("0.12")),
    more_time=timedelta(seconds=20),
    time_left=timedelta(seconds=40),
    commits=[BudgetCommit(sha="abcdef0123456789", subject="Split the lexer")],
    diffstat="1 file changed, 3 insertions(+)",
    uncommitted=2,
)
REQUEST = ApprovalRequest(
    tool="budget",
    title="Job 7 on acme/api reached its time budget",
    scope="job-7",
    owners=["local:alice"],
    budget=CARD,
)


def test_the_terminal_card_says_what_the_job_did_and_each_answers_command() -> None:
    shown = "\n".join(
        plain(approval_card(ApprovalState(approval_id=IDENT, request=REQUEST), value_chars=200))
    )
    for words in (
        "reached its work budget (pause 1 of at most 3)",
        "asked for: refactor the parser",
        "worked: 21s of a 20s budget",
        "abcdef0123 Split the lexer",
        "1 file changed, 3 insertions(+)",
        "uncommitted: 2 paths",
        "another 20s of work; the host allows 40s more after it",
        f"go on: codedesk approve {IDENT}",
        "finish here: codedesk finish 7",
        f"stop: codedesk decline {IDENT}",
    ):
        assert words in shown, shown
    assert "Approve budget?" not in shown  # no tool call is laid out


def test_the_discord_card_shows_the_same_and_the_last_extension_says_so() -> None:
    last = CARD.model_copy(update={"time_left": timedelta(0)})
    embed = card_embed(IDENT, REQUEST.model_copy(update={"budget": last}))
    assert embed.description is not None and "Split the lexer" in embed.description
    effect = next(field.value for field in embed.fields if field.name == "If approved")
    assert effect is not None and "it is the last the host allows" in effect
    assert "codedesk finish 7" in effect


def test_the_report_lists_each_pause_when_why_and_who_answered_what() -> None:
    at = datetime(2026, 12, 6, 12, 0, 0, tzinfo=UTC)
    report = JobReport(
        number=7,
        repo="acme/api",
        task="t",
        outcome=JobOutcome.INTEGRATED,
        budget_pauses=[
            BudgetPause(at=at, reason=BudgetReason.TIME, answer=BudgetAnswer.GO_ON, by="alice"),
            BudgetPause(at=at, reason=BudgetReason.MONEY, answer=BudgetAnswer.FINISH, by="bob"),
        ],
    )
    shown = "\n".join(plain(job_report(report)))
    assert "budget pauses (2)" in shown
    assert "paused at 2026-12-06 12:00:00Z (time): go on by alice" in shown, shown
    assert "paused at 2026-12-06 12:00:00Z (money): finish here by bob" in shown, shown
