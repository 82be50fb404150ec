"""A job paused at its budget, as the real-agent tests of issue 47 drive it: wait for the pause
and its card, and see that the paused job holds no process and no slot."""

from __future__ import annotations

from pathlib import Path

from desk.holds.approvals import ApprovalState
from desk.payloads.jobs import JobPhase, JobStatus
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agent_runs.agent_processes import agents_in
from tests.helpers.waiting import eventually


async def paused(desk: DeskClient, number: int) -> JobStatus:
    """Job `number`'s status once it waits at its budget card."""

    async def status() -> JobStatus:
        return (await desk.status(number))[1]

    seen: JobStatus = await eventually(
        status, lambda now: now.phase == JobPhase.BUDGET_PAUSED, "the budget pause"
    )
    return seen


async def budget_card(desk: DeskClient) -> ApprovalState:
    """The one open approval: the budget card."""
    approvals = ApprovalsClient(desk.client)
    [card] = await eventually(approvals.open_approvals, lambda open: len(open) == 1, "the card")
    assert card.request.budget is not None, card
    return card


def holds_no_process(worktree: str) -> None:
    """No process of the job's agent is alive (seen in /proc, from the host)."""
    assert agents_in(Path(worktree)) == []
