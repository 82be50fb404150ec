"""A working agent as others see it: its heartbeat, and the latest lines a surface shows."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from desk.records.base import Payload
from desk.scrub import scrub
from desk.usage.tally import Usage

RUN_AGENT = "run_agent"
"""The agent activity's name: a surface finds the agent's heartbeat among a job's pending
activities by it."""


class AgentHeartbeat(Payload):
    """Heartbeat details of `run_agent`: its process group and its last lines, for `describe`.

    Temporal keeps only the latest details with the pending activity, never one event per
    heartbeat, so the job's history does not grow with the agent's output.
    """

    pgid: int = 0
    last_lines: list[str] = Field(default_factory=list)
    """The agent's last readable lines, scrubbed."""
    tool_calls: int = 0
    """Tool calls the agent's hook reported so far (the hold channel counts them)."""
    lines_total: int = 0
    """Lines this attempt has printed so far: a follower prints only the ones it has not seen."""
    session_id: str = ""
    """The agent CLI's session, read from its output: the next attempt resumes it."""
    resumed: int = 0
    """Attempts of this job's agent so far that resumed an earlier attempt's session."""
    started_over: int = 0
    """Attempts after the first that had no session to resume and ran the task afresh."""
    texts: list[str] = Field(default_factory=list)
    """The agent's latest own texts worth reading (`activities.agent.streams.texts`), whole,
    scrubbed."""
    texts_total: int = 0
    """Such texts this attempt wrote so far: a follower shows only the ones it has not seen."""
    usage: Usage | None = None
    """What the agent used so far, this activity's earlier attempts included."""


def shown_lines(lines: Sequence[str], count: int, chars: int) -> list[str]:
    """The last `count` lines that show something, scrubbed, each cut to `chars` characters."""
    if count <= 0:
        return []
    shown = [scrub(line).rstrip() for line in lines if line.strip()]
    return [_cut(line, chars) for line in shown[-count:]]


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: max(chars - 1, 0)] + "…"
