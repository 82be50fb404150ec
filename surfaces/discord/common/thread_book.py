"""Which job each Discord thread follows, kept on disk so it outlives the bot.

The bot writes a place down when `/task` starts a job there, and again whenever the job's
outbox shows something in it (a job started by an earlier bot, or before this book existed).
Beside the job it keeps the requester, the newest message of the place the bot has handled (a
snowflake: Discord's ids grow with time), the people already told they may not talk to the job,
and whether the job has ended. A place that follows several jobs one after another (a DM, a
thread asked in twice) follows the newest. The file is `<home>/discord/threads.json`, written
whole to a temporary file and renamed, so a crash leaves the old book or the new one.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

log = logging.getLogger(__name__)

BOOK_FILE = Path("discord") / "threads.json"
"""Where the book lives under the bot's home (CODEDESK_HOME)."""


@dataclass(frozen=True)
class ThreadJob:
    """The job a place follows, and how far the bot has read the place for it."""

    job: int
    requester: str = ""
    """Who asked for the job (`discord:<user id>`), empty when the bot did not see it asked."""
    handled: int = 0
    """The id of the newest message of the place the bot has handled for this job."""
    noticed: tuple[int, ...] = field(default=())
    """The people told once that they may not talk to this job's agent."""
    ended: bool = False


class ThreadBook:
    """The places of jobs, by channel or thread id, read once and written on every change."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.places: dict[int, ThreadJob] = _read(path)

    def job_in(self, place: int) -> ThreadJob | None:
        return self.places.get(place)

    def open_places(self) -> list[int]:
        """The places whose job has not ended, for reading what was written while the bot was
        away."""
        return [place for place, followed in self.places.items() if not followed.ended]

    def follow(self, place: int, job: int, *, requester: str = "", since: int = 0) -> None:
        """`place` follows `job` (from `since`, a message id, when it starts following it)."""
        known = self.places.get(place)
        if known is not None and known.job > job:
            return  # an older job's outbox: the place follows the newer one
        if known is not None and known.job == job:
            if requester and not known.requester:
                self._put(place, replace(known, requester=requester))
            return
        handled = max(since, known.handled if known is not None else 0)
        self._put(place, ThreadJob(job=job, requester=requester, handled=handled))

    def handled(self, place: int, message: int) -> None:
        known = self.places.get(place)
        if known is not None and message > known.handled:
            self._put(place, replace(known, handled=message))

    def noticed(self, place: int, person: int) -> None:
        known = self.places.get(place)
        if known is not None and person not in known.noticed:
            self._put(place, replace(known, noticed=(*known.noticed, person)))

    def ended(self, place: int, job: int) -> None:
        known = self.places.get(place)
        if known is None or known.job < job:
            self._put(place, ThreadJob(job=job, ended=True))
        elif known.job == job and not known.ended:
            self._put(place, replace(known, ended=True))

    def _put(self, place: int, followed: ThreadJob) -> None:
        self.places[place] = followed
        self.path.parent.mkdir(parents=True, exist_ok=True)
        written = self.path.with_suffix(".tmp")
        book = {str(place): asdict(entry) for place, entry in self.places.items()}
        written.write_text(json.dumps(book, indent=1), encoding="utf-8")
        os.replace(written, self.path)


def _read(path: Path) -> dict[int, ThreadJob]:
    """The book on disk; an unreadable one is logged and started afresh (its jobs' outboxes
    write their places down again)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return {
            int(place): ThreadJob(
                job=int(entry["job"]),
                requester=str(entry.get("requester", "")),
                handled=int(entry.get("handled", 0)),
                noticed=tuple(int(person) for person in entry.get("noticed", [])),
                ended=bool(entry.get("ended", False)),
            )
            for place, entry in raw.items()
        }
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as error:
        log.warning(
            "The bot's book of job threads (%s) is unreadable (%s): starting afresh.", path, error
        )
        return {}
