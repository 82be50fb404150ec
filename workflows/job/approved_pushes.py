"""After the job: the agent's approved pushes, carried out by codedesk on the host.

To the default branch, a ship request: the push of exactly the integrated SHA through a change
report and its `Ship`. To another branch, the job's HEAD when the agent asked, pushed as it is.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.ship.branch_push import BranchPushActivities
    from activities.ship.ship_request import ShipRequestActivities
    from desk.payloads.jobs import JobOutcome, JobReport
    from desk.payloads.ship_requests import (
        BranchPushInput,
        BranchPushResult,
        BranchPushStatus,
        ShipRequestInput,
        ShipRequestResult,
        ShipRequestStatus,
    )
    from workflows.policies import HOST_WAIT, SHIP_REQUEST_STEP, git_step

from workflows.host.host_routes import Route, on_host
from workflows.job.record.state import JobState
from workflows.reasons import reason_of


async def request_ships(state: JobState, report: JobReport) -> list[ShipRequestResult]:
    """Ask for the push of exactly the job's integrated SHA, once per branch the agent named.

    One activity per branch, its id the first approval's: a crash between the approval and the
    request replays to the same activity, and the `Ship` it starts is keyed by the SHA.
    """
    by_branch: dict[str, list[str]] = {}
    for ident, ask in state.ship_asks.items():
        if not ask.sha:
            by_branch.setdefault(ask.branch, []).append(ident)
    results = []
    for branch, idents in by_branch.items():
        asks = [
            state.ship_asks[ident].model_copy(update={"check": report.check}) for ident in idents
        ]
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
                ShipRequestActivities.request_ship,
                request,
                **(
                    step
                    | ActivityConfig(summary=f"asking to ship {request.sha[:12]} of {request.repo}")
                ),
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


async def push_branches(state: JobState, report: JobReport) -> list[BranchPushResult]:
    """Push each approved (branch, HEAD) once, on the clone's host, unless the job was cancelled.

    After the agent's run, so a sandboxed agent's commits are in the clone. One activity per
    approval, its id the approval's: a worker crash replays to it, and it finds the branch at
    the SHA already rather than pushing again.
    """
    done: set[tuple[str, str]] = set()
    results = []
    for ident, ask in state.ship_asks.items():
        if not ask.sha or (ask.branch, ask.sha) in done:
            continue
        done.add((ask.branch, ask.sha))
        request = BranchPushInput(
            repo=state.job.repo,
            sha=ask.sha,
            branch=ask.branch,
            approval_id=ident,
            approved_by=ask.approved_by,
        )
        if report.outcome == JobOutcome.CANCELLED:
            results.append(_unpushed(request, BranchPushStatus.NOT_PUSHED, ""))
            continue
        try:
            result = await _push_branch(request, state.job.host, state.job.git_heartbeat_timeout)
        except ActivityError as error:
            result = _unpushed(request, BranchPushStatus.REFUSED, reason_of(error))
        results.append(result)
    return results


async def _push_branch(
    request: BranchPushInput, host: str, heartbeat_timeout: timedelta
) -> BranchPushResult:
    step = git_step(heartbeat_timeout)
    step["activity_id"] = f"push-{request.approval_id}"

    async def push(route: Route) -> BranchPushResult:
        return await workflow.execute_activity_method(
            BranchPushActivities.push_branch,
            request,
            **(
                step
                | route
                | ActivityConfig(summary=f"pushing {request.sha[:12]} to {request.branch}")
            ),
        )

    return await on_host(push, host, HOST_WAIT)


def _unpushed(request: BranchPushInput, status: BranchPushStatus, reason: str) -> BranchPushResult:
    return BranchPushResult(
        status=status,
        branch=request.branch,
        sha=request.sha,
        approval_id=request.approval_id,
        approved_by=request.approved_by,
        reason=reason,
    )
