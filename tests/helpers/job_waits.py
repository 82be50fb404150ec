"""Waiting on what a job and its approvals show: the agent at work, approvals open; the steps
its history scheduled; a job started to be at work."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from temporalio.api.enums.v1 import EventType

from desk.payloads.jobs import JobPhase, JobStatus
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.waiting import eventually


async def status_until(
    desk: DeskClient, number: int, accept: Callable[[JobStatus], object], what: str
) -> JobStatus:
    """Job `number`'s status, once `accept` holds for it (fails naming `what`)."""

    async def status() -> JobStatus:
        return (await desk.status(number))[1]

    found: JobStatus = await eventually(status, accept, what)
    return found


async def working(desk: DeskClient, number: int) -> str:
    """Wait until the job's agent runs; return the worktree."""
    found = await status_until(
        desk,
        number,
        lambda status: status.phase == JobPhase.WORKING and status.worktree,
        f"job {number} to start working",
    )
    return found.worktree


async def open_ids(approvals: ApprovalsClient, count: int = 1) -> list[str]:
    """The ids of the open approvals, once there are at least `count`."""

    async def listed() -> list[str]:
        return [state.approval_id for state in await approvals.open_approvals()]

    ids: list[str] = await eventually(
        listed, lambda ids: len(ids) >= count, f"{count} approvals to open"
    )
    return ids


async def scheduled_activities(desk: DeskClient, number: int) -> list[str]:
    """The activity types the job's history scheduled, in order."""
    return [
        event.activity_task_scheduled_event_attributes.activity_type.name
        for event in await desk.history(number)
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]


async def working_job(desk: DeskClient, origin: Path) -> int:
    """A job on acme/api whose agent sleeps, once it works: holds may be asked of it."""
    await desk.add_repo("acme/api", str(origin))
    number = await desk.start_job("acme/api", "sleep", agent_command=agent("sleep:30"))
    await working(desk, number)
    return number
