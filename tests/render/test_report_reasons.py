"""A report's reason is data from the job and words at the surface: the words users have always
read, in the text, on Discord and in `codedesk show --json`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from desk.holds.approvals import HeldCall, HeldNote, HoldVerdict
from desk.payloads.jobs import JobOutcome, JobReport, ReasonKind
from surfaces.render.discord.replies import report_text
from surfaces.render.layout.report_layout import held_calls
from surfaces.render.layout.report_reasons import report_reason
from surfaces.render.terminal.block_lines import plain

SECONDS = timedelta(seconds=1)


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"reason_kind": "cancelled_queued"}, "Cancelled while queued: it never ran."),
        ({"reason_kind": "cancelled_before_agent"}, "Cancelled before the agent ran."),
        ({"reason_kind": "cancelled"}, "Cancelled."),
        (
            {"reason_kind": "activity_failed", "reason": "the worker went away"},
            "The agent activity failed: the worker went away",
        ),
        ({"reason_kind": "exited", "exit_code": 3}, "The agent exited with code 3."),
        ({"reason_kind": "killed", "exit_code": -9}, "The agent was killed by signal 9."),
        (
            {"reason_kind": "out_of_time", "budget": 60 * SECONDS},
            "The agent ran past the work-time budget of 1m00s and was stopped.",
        ),
        (
            {"reason_kind": "out_of_time", "budget": 2 * SECONDS, "extended_by": SECONDS},
            "The agent ran past the work-time budget of 2.0s and was stopped. Long-running mode "
            "extended the budget by 1.0s.",
        ),
        (
            {
                "reason_kind": "out_of_time",
                "budget": 2 * SECONDS,
                "extended_by": 3 * SECONDS,
                "budget_ceiling": 5 * SECONDS,
            },
            "The agent ran past the work-time budget of 2.0s and was stopped. Long-running mode "
            "extended the budget by 3.0s, up to its ceiling of 5.0s.",
        ),
        (
            {"reason_kind": "integration_withdrawn"},
            "Cancelled while waiting to integrate; the branch is kept.",
        ),
        (
            {"reason_kind": "integration_waited", "integration_wait": 3600 * SECONDS},
            "The repository did not integrate within 1h00m.",
        ),
    ],
    ids=lambda value: value.get("reason_kind") if isinstance(value, dict) else None,
)
def test_each_reason_has_its_words(fields: dict[str, Any], words: str) -> None:
    report = JobReport(number=4, repo="acme/api", outcome=JobOutcome.FAILED, **fields)
    assert report_reason(report) == words
    assert words.replace("(", "").split(":")[0] in report_text(report).replace("\\", "")


def test_every_kind_has_words() -> None:
    for kind in ReasonKind:
        report = JobReport(number=1, repo="a/b", outcome=JobOutcome.FAILED, reason_kind=kind)
        assert report_reason(report), kind


def test_a_report_recorded_before_says_its_reason_as_it_was() -> None:
    """A report of an earlier version has its words in `reason` and no kind."""
    old = JobReport.model_validate(
        {"number": 2, "repo": "a/b", "outcome": "failed", "reason": "The agent exited with code 1."}
    )
    assert old.reason_kind is None
    assert report_reason(old) == "The agent exited with code 1."


def test_the_jobs_word_on_a_held_call_is_worded_here_and_an_older_note_shown_as_it_is() -> None:
    calls = [
        HeldCall(
            tool="Bash",
            summary="git push",
            verdict=HoldVerdict.PENDING,
            approval_id="a",
            note_kind=HeldNote.UNANSWERED_AT_END,
        ),
        HeldCall(
            tool="Bash",
            summary="rm -rf build",
            verdict=HoldVerdict.APPROVED,
            approval_id="b",
            note_kind=HeldNote.APPROVED_LATE,
        ),
        HeldCall(tool="Bash", summary="curl", verdict=HoldVerdict.DECLINED, note="not today"),
        HeldCall(
            tool="Bash",
            summary="make deploy",
            verdict=HoldVerdict.PENDING,
            approval_id="d",
            note="Nobody answered before the job ended.",  # as a job of an earlier version said
        ),
    ]
    said = plain(held_calls(calls))
    assert said[1].endswith("git push (Nobody answered before the job ended.)"), said
    assert "no later identical call used it" in said[2], said
    assert said[3].endswith("curl (not today)"), said
    assert said[4].endswith("make deploy (Nobody answered before the job ended.)"), said
