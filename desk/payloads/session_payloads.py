"""A finished job's kept agent session: `SessionKeep`'s input and result."""

from __future__ import annotations

from datetime import datetime, timedelta

from desk.records.base import Payload


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
