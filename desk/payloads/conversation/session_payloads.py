"""A finished job's kept agent session: `SessionKeep`'s input and result, and a continuation's
link to the job whose session it resumes."""

from __future__ import annotations

from datetime import datetime, timedelta

from desk.records.base import Payload, ScrubbedText


class SessionKeepInput(Payload):
    """Keep job `number`'s agent session (its homes in the job's folder) until `until`, then
    remove it on the clone's host."""

    number: int
    until: datetime
    host: str = ""
    """The host whose shelf holds the job's folder (empty: the shared queue)."""
    host_wait: timedelta = timedelta(minutes=1)


class SessionRemoved(Payload):
    """`SessionKeep`'s result: when the session was removed."""

    number: int
    removed_at: datetime


class Continuation(Payload):
    """A job that continues job `number` (a message to it after its report): its agent
    resumes that job's session `session_id` with the message as its prompt, or, with no
    session left, starts a new one with that job's `task` and the message."""

    number: int
    task: ScrubbedText
    session_id: str = ""
    """Job `number`'s agent session (empty: none is left to resume)."""
    branch: str = ""
    """Job `number`'s kept branch, which the continuation's worktree starts from (empty: it
    integrated, or kept nothing, and the worktree is cut from the clone's HEAD)."""
