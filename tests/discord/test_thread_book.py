"""The bot's book of job places (surfaces/discord/common/thread_book.py): what it keeps
outlives the bot, a place follows its newest job, and an unreadable book starts afresh."""

from __future__ import annotations

from pathlib import Path

from surfaces.discord.common.thread_book import BOOK_FILE, ThreadBook, ThreadJob


def test_a_place_its_job_and_how_far_it_was_read_outlive_the_bot(tmp_path: Path) -> None:
    path = tmp_path / BOOK_FILE
    book = ThreadBook(path)
    book.follow(50, 3, requester="discord:1001", since=40)
    book.handled(50, 61)
    book.handled(50, 55)  # older than what was handled: nothing moves back
    book.noticed(50, 666)
    book.follow(70, 4)
    book.ended(70, 4)
    again = ThreadBook(path)
    assert again.job_in(50) == ThreadJob(
        job=3, requester="discord:1001", handled=61, noticed=(666,), ended=False
    )
    assert again.open_places() == [50]


def test_a_place_follows_its_newest_job_and_an_older_outbox_changes_nothing(
    tmp_path: Path,
) -> None:
    book = ThreadBook(tmp_path / BOOK_FILE)
    book.follow(50, 3, requester="discord:1001", since=40)
    book.noticed(50, 666)
    book.follow(50, 5, requester="discord:1002", since=90)
    book.follow(50, 3)  # job 3's outbox shows its last words after job 5 started
    book.ended(50, 3)
    assert book.job_in(50) == ThreadJob(job=5, requester="discord:1002", handled=90)


def test_an_unreadable_book_starts_afresh(tmp_path: Path) -> None:
    path = tmp_path / BOOK_FILE
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    book = ThreadBook(path)
    assert book.places == {}
    book.follow(50, 1)
    assert ThreadBook(path).job_in(50) == ThreadJob(job=1)
