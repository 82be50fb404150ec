"""After the job: the agent's approved pushes to the default branch, asked for by codedesk."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.ship_request import ShipRequestActivities
    from desk.payloads.jobs import JobOutcome, JobReport
    from desk.payloads.ship_requests import (
        ShipRequestInput,
        ShipRequestResult,
        ShipRequestStatus,
    )
    from workflows.policies import SHIP_REQUEST_STEP

from workflows.job.reasons import reason_of
from workflows.job.state import JobState


async def request_ships(state: JobState, report: JobReport) -> list[ShipRequestResult]:
    """Ask for the push of exactly the job's integrated SHA, once per branch the agent named.

    One activity per branch, its id the first approval's: a crash between the approval and the
    request replays to the same activity, and the `Ship` it starts is keyed by the SHA.
    """
    by_branch: dict[str, list[str]] = {}
    for ident, ask in state.ship_asks.items():
        by_branch.setdefault(ask.branch, []).append(ident)
    results = []
    for branch, idents in by_branch.items():
        asks = [state.ship_asks[ident] for ident in idents]
        if report.outcome != JobOutcome.INTEGRATED or not report.head:
            results.append(
                ShipRequestResult(
                    status=ShipRequestStatus.NOT_INTEGRATED, branch=branch, agent_approvals=idents
                )
            )
            continue
        job = state.job
        request = ShipRequestInput(
            repo=job.repo,
            sha=report.head,
            asks=asks,
            requester=job.requester,
            place=job.place,
            host=job.host,
            max_commits=job.report_commits,
            max_files=job.report_files,
        )
        step = SHIP_REQUEST_STEP.copy()
        step["activity_id"] = f"ship-{idents[0]}"
        try:
            result = await workflow.execute_activity_method(
                ShipRequestActivities.request_ship, request, **step
            )
        except ActivityError as error:
            result = ShipRequestResult(
                status=ShipRequestStatus.NOT_REQUESTED,
                branch=branch,
                sha=report.head,
                agent_approvals=idents,
                reason=reason_of(error),
            )
        results.append(result)
    return results
