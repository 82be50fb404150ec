"""What came of the pushes a job's report asked for: read from their `Ship`s when it is shown.

A job asks for the push of its integrated commit as it ends, so its report can only say the
push waits for an owner; the `Ship` ends later (pushed, declined, refused). A surface that
shows the report reads each requested push's `Ship` and shows its end once it has one.
"""

from __future__ import annotations

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError
from temporalio.service import RPCError

from desk.payloads.jobs import JobReport
from desk.payloads.ship_payloads import PushResult
from desk.payloads.ship_requests import ShipOutcome, ShipRequestResult, ShipRequestStatus


async def with_ship_outcomes(client: Client, report: JobReport) -> JobReport:
    """`report` with the outcome of each push it asked for whose `Ship` has ended."""
    if not any(_asked(request) for request in report.ship_requests):
        return report
    requests = []
    for request in report.ship_requests:
        if _asked(request):
            outcome = await ship_outcome(client, request.push_workflow_id)
            request = request.model_copy(update={"outcome": outcome})
        requests.append(request)
    return report.model_copy(update={"ship_requests": requests})


async def ship_outcome(client: Client, push_workflow_id: str) -> ShipOutcome | None:
    """How the latest run of the push ended; None while it runs, or when it cannot be read."""
    handle = client.get_workflow_handle(push_workflow_id, result_type=PushResult)
    try:
        described = await handle.describe()
        if described.status == WorkflowExecutionStatus.COMPLETED:
            result = await handle.result()
            return ShipOutcome(
                status=result.status.value,
                reason=result.reason,
                approved_by=result.approved_by,
                destination=result.destination,
                pull_request_url=result.pull_request_url,
            )
    except (RPCError, WorkflowFailureError):
        return None
    if described.status in (None, WorkflowExecutionStatus.RUNNING):
        return None
    closed = described.status.name.lower().replace("canceled", "cancelled").replace("_", " ")
    return ShipOutcome(status=closed, reason=f"The push's workflow was {closed}.")


def _asked(request: ShipRequestResult) -> bool:
    return request.status == ShipRequestStatus.REQUESTED and bool(request.push_workflow_id)
