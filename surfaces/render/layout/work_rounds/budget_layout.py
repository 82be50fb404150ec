"""A budget card and a report's budget pauses, in words (issue 47).

The job carries the card as data (`desk.holds.budget_cards.BudgetCard`): what the job has done so
far, what it asked for, and what each answer gives. Every target words it here: the terminal's
card (`codedesk approvals`), Discord's embed, the report's list of pauses.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from decimal import Decimal

from desk.config.basics.durations import format_duration
from desk.holds.budget_cards import BudgetAnswer, BudgetCard, BudgetPause, BudgetReason
from surfaces.render.layout.work_rounds.usage_words import usage_words

SHOWN_COMMITS = 5
"""The card lists at most this many of the branch's commits (the newest last)."""
REASONS = {BudgetReason.TIME: "its work budget", BudgetReason.MONEY: "its spend limit"}
ANSWERS = {
    BudgetAnswer.GO_ON: "go on",
    BudgetAnswer.FINISH: "finish here",
    BudgetAnswer.STOP: "stop",
}


def dollars(amount: Decimal) -> str:
    return f"${amount:.4f}".rstrip("0").rstrip(".")


def budget_summary(card: BudgetCard) -> list[str]:
    """What the job has done so far and what it asked for, one line each."""
    said = [
        f"reached {REASONS[card.reason]} (pause {card.pause} of at most {card.asks_max})",
        f"asked for: {card.task}",
        f"worked: {format_duration(card.worked)} of a {format_duration(card.budget)} budget",
    ]
    if card.spent is not None:
        limit = f" (limit {dollars(card.spend_limit)})" if card.spend_limit is not None else ""
        said.append(f"spent: {usage_words(card.spent)}{limit}")
    shown = card.commits[-SHOWN_COMMITS:]
    more = len(card.commits) - len(shown) + card.commits_omitted
    if not card.commits:
        said.append("commits: none yet")
    else:
        said.append(f"commits: {len(card.commits) + card.commits_omitted}")
        said += [f"  {commit.sha[:10]} {commit.subject}" for commit in shown]
        if more:
            said.append(f"  (and {more} earlier)")
    if card.diffstat:
        said.append(f"diff: {card.diffstat}")
    if card.uncommitted:
        said.append(f"uncommitted: {card.uncommitted} paths (finish here integrates only commits)")
    return said


def budget_effect(card: BudgetCard) -> str:
    """What each answer does, and how much more the host allows."""
    if card.more_time is not None:
        more = f"another {format_duration(card.more_time)} of work"
        left = card.time_left
        after = f"; the host allows {format_duration(left)} more after it" if left else ""
        if left is not None and left <= timedelta(0):
            after = "; it is the last the host allows"
    else:
        assert card.more_money is not None
        more = f"another {dollars(card.more_money)} to spend"
        money = card.money_left
        after = f"; the host allows {dollars(money)} more after it" if money else ""
        if money is not None and money <= 0:
            after = "; it is the last the host allows"
    return (
        f"Approve: the agent goes on with {more}{after}, its session resumed. Decline: the job "
        f"stops, nothing integrated, its branch kept. `codedesk finish {card.job}`: the job "
        "goes on without the agent, checks and integrates what is committed."
    )


def pause_lines(pauses: Sequence[BudgetPause]) -> list[str]:
    """A report's budget pauses: when, why, who answered what."""
    said = []
    for pause in pauses:
        why = "time" if pause.reason == BudgetReason.TIME else "money"
        when = f"{pause.at:%Y-%m-%d %H:%M:%S}Z"
        if pause.answer is None:
            said.append(f"paused at {when} ({why}): unanswered")
            continue
        by = f" by {pause.by}" if pause.by else ""
        said.append(f"paused at {when} ({why}): {ANSWERS[pause.answer]}{by}")
    return said
