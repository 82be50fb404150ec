"""The job's integration: asked of its repository's `Repo` entity, by the entity's names, and its
answer (the job's `integration_finished` signal) awaited; withdrawn when the job is cancelled."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.payloads.jobs import (
        IntegrationRequest,
        IntegrationResult,
        IntegrationStatus,
        ReasonKind,
        Worktree,
    )

from workflows import patches
from workflows.calls.repo_calls import Entity, queue_integration, repo_handle, withdraw_integration
from workflows.in_flight import heeding_cancel
from workflows.job.record.state import JobState

WITHDRAW_WAIT = timedelta(minutes=2)
"""How long a cancelled job waits for its repository to confirm a withdrawal."""


def answered(state: JobState, result: IntegrationResult) -> None:
    """The `Repo` entity's answer to the job's integration request: the first one counts (a
    withdrawal that crossed the answer on its way is answered withdrawn after it)."""
    if state.integration is None:
        state.integration = result


async def integrate(state: JobState, worktree: Worktree) -> IntegrationResult:
    """Ask the repository's entity to integrate, and wait for its answer."""
    job = state.job
    request = IntegrationRequest(
        job_workflow_id=workflow.info().workflow_id,
        number=job.number,
        repo=job.repo,
        worktree=worktree,
        report_commits=job.report_commits,
        report_files=job.report_files,
        host=job.host,
        git_heartbeat_timeout=job.git_heartbeat_timeout,
    )
    try:
        entity = await heeding_cancel(queue_integration(request))
    except asyncio.CancelledError:
        if not workflow.patched(patches.CANCEL_IN_FLIGHT):
            raise  # as jobs started before the patch ended on replay
        # The request may have reached the entity: take it back there.
        return await _withdraw(state, repo_handle(request.repo))
    try:
        await workflow.wait_condition(
            lambda: state.integration is not None,
            timeout=job.integration_wait,
            timeout_summary=f"waiting for {job.repo} to integrate",
        )
    except asyncio.CancelledError:
        return await _withdraw(state, entity)
    except TimeoutError:
        return IntegrationResult(
            status=IntegrationStatus.FAILED,
            reason_kind=ReasonKind.INTEGRATION_WAITED,
            branch_kept=True,
        )
    assert state.integration is not None
    return state.integration


async def _withdraw(state: JobState, entity: Entity) -> IntegrationResult:
    """The cancelled job's request out of the entity's queue: its answer, or withdrawn when
    none comes (an integration that already runs finishes and is answered)."""
    if not await withdraw_integration(entity, workflow.info().workflow_id):
        return _withdrawn()  # no entity runs: the request never reached one
    try:
        await workflow.wait_condition(
            lambda: state.integration is not None,
            timeout=WITHDRAW_WAIT,
            timeout_summary="withdrawing from the integration queue",
        )
    except TimeoutError:
        return _withdrawn()
    assert state.integration is not None
    return state.integration


def _withdrawn() -> IntegrationResult:
    """A cancelled job's integration, given up with no answer from its repository's entity."""
    return IntegrationResult(
        status=IntegrationStatus.WITHDRAWN,
        reason_kind=ReasonKind.INTEGRATION_WITHDRAWN,
        branch_kept=True,
    )
