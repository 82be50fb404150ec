"""A page of open approvals, read with the workflow service alone (no SDK client or converter).

Each open approval's state is asked of its workflow (a query a worker answers) and read as the
`ApprovalState` model from its JSON; visibility gives the page and the count. The CLI lists
approvals through here and `ApprovalsClient.open_page` too, so both show the same.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import TYPE_CHECKING

from temporalio.api.common.v1 import WorkflowExecution as Execution
from temporalio.api.query.v1 import WorkflowQuery
from temporalio.api.workflowservice.v1 import (
    CountWorkflowExecutionsRequest,
    QueryWorkflowRequest,
)

from desk.holds.approvals import ApprovalState
from desk.names import APPROVAL_STATE_QUERY, APPROVAL_WORKFLOW_TYPE
from surfaces.clients.listings.job_listing import json_data, listed
from surfaces.clients.listings.page import Page
from surfaces.clients.listings.worker_check import require_worker_at

if TYPE_CHECKING:
    from temporalio.service import WorkflowService

OPEN = f"WorkflowType = '{APPROVAL_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'"

QUERIES_AT_ONCE = 16
"""Approval states asked for at once while listing: enough to hide round trips, few enough
not to swamp a worker that also runs jobs."""

STATE_TIMEOUT = timedelta(seconds=5)
"""How long one approval's state may take; one that does not answer is listed next time."""


async def open_page(
    service: WorkflowService, namespace: str, task_queue: str, limit: int
) -> Page[ApprovalState]:
    """The `limit` newest open approvals, newest first, and how many are open in all.

    A worker must answer each approval's state: without one polling `task_queue` this says so
    at once (NoWorkerError) instead of waiting for each query to time out (an empty
    `task_queue`, as the Discord bot gives, leaves that to each query).
    """
    if task_queue:
        await require_worker_at(service, namespace, task_queue)
    counted, infos = await asyncio.gather(
        service.count_workflow_executions(
            CountWorkflowExecutionsRequest(namespace=namespace, query=OPEN)
        ),
        listed(service, namespace, OPEN, limit),
    )
    idents = [info.execution.workflow_id for info in infos]
    states = await open_states(service, namespace, idents)
    states.sort(key=opened_at, reverse=True)
    settled = len(idents) - len(states)
    return Page(items=states, total=max(counted.count - settled, len(states)))


async def open_states(
    service: WorkflowService, namespace: str, idents: list[str]
) -> list[ApprovalState]:
    """The state of each approval that is still open, asked a few at a time."""
    from temporalio.service import RPCError

    gate = asyncio.Semaphore(QUERIES_AT_ONCE)

    async def ask(ident: str) -> ApprovalState | None:
        request = QueryWorkflowRequest(
            namespace=namespace,
            execution=Execution(workflow_id=ident),
            query=WorkflowQuery(query_type=APPROVAL_STATE_QUERY),
        )
        async with gate:
            try:
                answer = await service.query_workflow(request, timeout=STATE_TIMEOUT)
            except RPCError:
                return None  # it settled meanwhile, or no worker answers: listed next time
        if answer.HasField("query_rejected") or not answer.query_result.payloads:
            return None
        state = json_data(answer.query_result.payloads[0], f"approval {ident}'s state")
        return ApprovalState.model_validate_json(state)

    found = await asyncio.gather(*(ask(ident) for ident in idents))
    # Visibility lags: one settled already (withdrawn with its start) is never shown.
    return [state for state in found if state is not None and state.outcome is None]


def opened_at(state: ApprovalState) -> str:
    return state.opened_at.isoformat() if state.opened_at else ""
