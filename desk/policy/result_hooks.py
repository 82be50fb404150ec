"""Result hooks: where the host sends each job's report and push's result beyond codedesk's own
surfaces (an HTTP webhook, a command), and how long a delivery is tried."""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum
from urllib.parse import urlsplit

from desk.records.base import Payload


class ResultHook(StrEnum):
    WEBHOOK = "webhook"
    """An HTTP POST of the result as JSON, signed with the host's secret."""
    COMMAND = "command"
    """A command run with the result as JSON on its standard input."""


class ResultHooks(Payload):
    """The host's hooks as a job or push carries them: names and times, never the URL, the
    secret or the command (those stay in the delivering worker's settings)."""

    hooks: list[ResultHook]
    attempt_timeout: timedelta = timedelta(seconds=30)
    window: timedelta = timedelta(days=1)


def webhook_url_problem(url: str) -> str:
    """Why `url` cannot be the result webhook, or "" when it can."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http:// or https:// URL with a host"
    if parts.username or parts.password:
        return "must not carry credentials: give the signing key as CODEDESK_RESULT_WEBHOOK_SECRET"
    return ""
