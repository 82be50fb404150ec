"""A hold's answer is data from the job and words at the hook: the words agents have always read."""

from __future__ import annotations

from typing import Any

import pytest

from desk.holds.approvals import HoldAnswer, HoldVerdict, HoldWhy
from desk.payloads.jobs import JobPhase
from surfaces.render.words.hold_answers import DO_NOT_RETRY, answer_words

IDENT = "approval-job-4-0123abcd"


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (HoldAnswer(verdict=HoldVerdict.ALLOWED, why=HoldWhy.ALLOWED), ""),
        (
            HoldAnswer(
                verdict=HoldVerdict.APPROVED, why=HoldWhy.APPROVED, approval_id=IDENT, by="alice"
            ),
            f"Approved by alice in codedesk ({IDENT}).",
        ),
        (
            HoldAnswer(verdict=HoldVerdict.APPROVED, why=HoldWhy.APPROVED_LATE, approval_id=IDENT),
            f"Approved by an owner in codedesk ({IDENT}).",
        ),
        (
            HoldAnswer(
                verdict=HoldVerdict.APPROVED,
                why=HoldWhy.APPROVED_BY_YOLO,
                approval_id=IDENT,
                by="yolo mode, switched on by alice",
            ),
            f"Approved by yolo mode, switched on by alice in codedesk ({IDENT}).",
        ),
        (
            HoldAnswer(
                verdict=HoldVerdict.DECLINED, why=HoldWhy.DECLINED, by="bob", note="not today"
            ),
            f"This call was declined by bob (not today). {DO_NOT_RETRY}",
        ),
        (
            HoldAnswer(verdict=HoldVerdict.WITHDRAWN, why=HoldWhy.WITHDRAWN),
            f"This call was withdrawn. {DO_NOT_RETRY}",
        ),
        (
            HoldAnswer(verdict=HoldVerdict.EXPIRED, why=HoldWhy.EXPIRED, note="after 1h"),
            f"This call was expired (after 1h). {DO_NOT_RETRY}",
        ),
        (
            HoldAnswer(verdict=HoldVerdict.PENDING, why=HoldWhy.UNANSWERED, approval_id=IDENT),
            f"Nobody has answered approval {IDENT} yet; it stays open. Do not work around it: "
            "carry on without the call, or ask again later (the same call joins this approval).",
        ),
        (
            HoldAnswer(
                verdict=HoldVerdict.DECLINED,
                why=HoldWhy.NOT_WORKING,
                job=4,
                phase=JobPhase.INTEGRATING,
            ),
            "Job 4 is not working now (integrating).",
        ),
    ],
    ids=lambda value: value.why.value if isinstance(value, HoldAnswer) and value.why else None,
)
def test_each_answer_has_its_words(answer: HoldAnswer, words: str) -> None:
    assert answer_words(answer.model_dump(mode="json")) == words


@pytest.mark.parametrize(
    ("document", "words"),
    [
        # A job of an earlier version sent its words in `reason`: they are said as they were.
        (
            {"verdict": "declined", "reason": "This call was declined by bob. Do not retry."},
            "This call was declined by bob. Do not retry.",
        ),
        # The hold channel's own refusal has words and no why.
        (
            {"verdict": "declined", "reason": "Job 4 is not running; the call may not run."},
            "Job 4 is not running; the call may not run.",
        ),
        (
            {"verdict": "declined", "reason": " "},
            "codedesk: this call was declined; the call may not run.",
        ),
        # A why whose fields are missing or odd says no more than the verdict.
        (
            {"verdict": "pending", "why": "unanswered"},
            "codedesk: this call was pending; the call may not run.",
        ),
        (
            {"verdict": "declined", "why": "not_working", "job": True, "phase": "done"},
            "codedesk: this call was declined; the call may not run.",
        ),
        (
            {"verdict": "declined", "why": ["odd"], "by": 3},
            "codedesk: this call was declined; the call may not run.",
        ),
        ({"verdict": "approved", "by": {"x": 1}}, "Approved by an owner in codedesk ()."),
    ],
)
def test_an_answer_without_its_data_says_its_reason_or_its_verdict(
    document: dict[str, Any], words: str
) -> None:
    assert answer_words(document) == words


def test_an_earlier_workers_answer_reads_as_it_was() -> None:
    """Its JSON has no why: the model reads it, and the words are its reason."""
    old = HoldAnswer.model_validate({"verdict": "withdrawn", "reason": "Withdrawn (not today)."})
    assert old.why is None and old.note == ""
    assert answer_words(old.model_dump(mode="json")) == "Withdrawn (not today)."
