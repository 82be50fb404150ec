"""A job's working agent as surfaces follow it: its latest lines, read from Temporal.

`run_agent` heartbeats its last lines; Temporal keeps only the latest heartbeat with the
pending activity (`describe()`), so surfaces read the agent's progress there and the job's
history gets no event per line.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from desk.payloads.agent_progress import RUN_AGENT, AgentHeartbeat
from desk.usage.tally import Usage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AgentLines:
    """What one look at a job found of its agent."""

    job_running: bool
    """False: the job has closed (or is gone), so no agent of it will work again."""
    agent_working: bool
    """An attempt of the agent activity is pending (running, or about to run again)."""
    lines: tuple[str, ...] = ()
    """The agent's last lines as its latest heartbeat carried them (scrubbed by the worker)."""
    total: int = 0
    """How many lines the agent's current attempt printed so far."""
    attempt: int = 0
    """The agent activity's attempt those lines are of."""
    texts: tuple[str, ...] = ()
    """The agent's latest own texts worth a message of their own (scrubbed by the worker)."""
    texts_total: int = 0
    """How many such texts the agent's current attempt wrote so far."""
    usage: Usage | None = None
    """What the agent used so far, every attempt of it (None until its usage is read)."""


ENDED = AgentLines(job_running=False, agent_working=False)


async def agent_lines(client: Client, workflow_id: str) -> AgentLines:
    """The agent of job `workflow_id` as its latest heartbeat shows it.

    Raises `RPCError` when the server cannot answer (a surface tries again later).
    """
    try:
        described = await client.get_workflow_handle(workflow_id).describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return ENDED
        raise
    if described.status != WorkflowExecutionStatus.RUNNING:
        return ENDED
    for pending in described.raw_description.pending_activities:
        if pending.activity_type.name != RUN_AGENT:
            continue
        working = AgentLines(job_running=True, agent_working=True, attempt=pending.attempt)
        payloads = list(pending.heartbeat_details.payloads)
        if not payloads:
            return working
        try:
            beat, *_ = await client.data_converter.decode(payloads, [AgentHeartbeat])
        except (ValueError, TypeError) as error:  # a worker of another version: show nothing
            log.warning("The agent heartbeat of %s cannot be read: %s", workflow_id, error)
            return working
        if not isinstance(beat, AgentHeartbeat):
            return working
        return replace(
            working,
            lines=tuple(beat.last_lines),
            total=beat.lines_total,
            texts=tuple(beat.texts),
            texts_total=beat.texts_total,
            usage=beat.usage,
        )
    return AgentLines(job_running=True, agent_working=False)


class NewLines:
    """Which of the agent's lines a follower (`codedesk watch`) has not printed yet."""

    def __init__(self) -> None:
        self.attempt = 0
        self.printed = 0

    def take(self, seen: AgentLines) -> tuple[int, list[str]]:
        """How many new lines the heartbeat no longer holds, and the new lines it holds."""
        return self._unseen(seen, seen.lines, seen.total)

    def _unseen(self, seen: AgentLines, held: tuple[str, ...], total: int) -> tuple[int, list[str]]:
        if not seen.agent_working:
            return 0, []
        if seen.attempt != self.attempt or total < self.printed:
            self.attempt, self.printed = seen.attempt, 0  # a new attempt counts from 0
        new = total - self.printed
        self.printed = max(self.printed, total)
        if new <= 0:
            return 0, []
        shown = list(held[-new:])
        return new - len(shown), shown


class NewTexts(NewLines):
    """Which of the agent's own texts a follower (a thread, `codedesk watch`) has not shown."""

    def take(self, seen: AgentLines) -> tuple[int, list[str]]:
        """How many new texts the heartbeat no longer holds, and the new texts it holds."""
        return self._unseen(seen, seen.texts, seen.texts_total)
