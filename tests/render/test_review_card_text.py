"""The review card's words and its attached diff: cut to Discord's limits, saying how to see
the rest; the card closed with its outcome."""

from __future__ import annotations

from desk.payloads.conversation.review_payloads import JobDiff, ReviewRound, ReviewVerdict
from desk.payloads.jobs import JobStatus
from desk.records.repo_setup import CheckRound, CheckStatus, CommandRun
from surfaces.render.discord.review_card import (
    CARD_CHARS,
    closed_text,
    diff_file,
    review_card_text,
)
from surfaces.render.discord.uploads import ATTACHMENT_BYTES

NOTE = "`codedesk diff 7` shows all of it"


def test_a_diff_within_the_limit_is_attached_whole() -> None:
    diff = JobDiff(head="abc", stat=" a.txt | 1 +", diff="+first\n")
    assert diff_file(7, diff) == b"+first\n"
    assert NOTE not in review_card_text(JobStatus(number=7, repo="acme/api"), diff, None)


def test_a_diff_over_the_upload_limit_is_cut_with_a_note_in_the_card_and_the_file() -> None:
    diff = JobDiff(head="abc", stat=" big | 9 +", diff="+é" * 50)
    cut = diff_file(7, diff, limit=140)
    assert len(cut) <= 140
    assert cut.decode().endswith(f"{NOTE}.\n")  # cut on a character, never inside one
    assert cut.decode().startswith("+é+é")
    # Over Discord's own limit the card says so too.
    whole = JobDiff(head="abc", diff="x" * (ATTACHMENT_BYTES + 1))
    assert len(diff_file(7, whole)) <= ATTACHMENT_BYTES
    assert NOTE in review_card_text(JobStatus(number=7, repo="acme/api"), whole, None)
    # A diff the workflow already cut (`diff_cut`) says so as well.
    short = JobDiff(head="abc", diff="+first\n", diff_cut=10)
    assert diff_file(7, short).decode().endswith(f"{NOTE}.\n")


def test_the_card_shows_the_check_and_its_rounds_and_stays_within_discords_length() -> None:
    status = JobStatus(
        number=7,
        repo="acme/api",
        branch="worker/7",
        review_rounds=[ReviewRound(round=1)],
        check=CommandRun(command="make test", status=CheckStatus.FAILED, exit_code=2),
        check_rounds=[
            CheckRound(round=1, command="make test", status=CheckStatus.FAILED),
            CheckRound(round=2, command="make test", status=CheckStatus.FAILED),
        ],
    )
    text = review_card_text(status, JobDiff(head="abc", stat="x" * 5000), None)
    assert "Check: `make test` failed (exit 2), after 2 rounds" in text
    assert "(round 1, branch `worker/7`)" in text
    assert len(text) <= CARD_CHARS
    answered = ReviewRound(round=1, verdict=ReviewVerdict.REVISE, by="alice")
    closed = closed_text(text, answered)
    assert closed.endswith("**Revision asked by alice.**") and len(closed) <= CARD_CHARS
