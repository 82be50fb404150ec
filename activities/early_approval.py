"""A held call's approval, watched by the hold channel: the hook runs as soon as it is approved.

The job answers a waiting hold in its own workflow task after the `Approval` child completes:
a second round trip after the person's answer. The channel also waits on the approval run
that is open while the call waits, and when that run ends approved it answers the hook at
once; the job's own answer follows and records the call as usual. Only an approval does this:
any other outcome (and any doubt) waits for the job's own answer.
"""

from __future__ import annotations

import asyncio

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError

from desk.approvals import HoldAnswer, HoldVerdict, OutcomeKind, approval_id_of_digest
from desk.names import job_workflow_id
from workflows.approval import Approval

FIRST_POLL = 0.05
LAST_POLL = 1.0


async def approved_early(client: Client, number: int, digest: str) -> HoldAnswer | None:
    """APPROVED once the approval run open for this call ends approved; None otherwise.

    A run that is already closed when first seen may be an earlier round of the same call
    (settled before this hold): it is never taken as this call's answer.
    """
    ident = approval_id_of_digest(job_workflow_id(number), digest)
    handle = client.get_workflow_handle(ident)
    pause = FIRST_POLL
    while True:
        try:
            described = await handle.describe()
        except RPCError:
            described = None  # not started yet
        if described is not None and described.status == WorkflowExecutionStatus.RUNNING:
            break
        await asyncio.sleep(pause)
        pause = min(pause * 2, LAST_POLL)
    run = client.get_workflow_handle_for(Approval.run, ident, run_id=described.run_id)
    try:
        outcome = await run.result(follow_runs=False)
    except Exception:  # failed, terminated, timed out: the job's own answer decides
        return None
    if outcome.kind != OutcomeKind.APPROVED:
        return None
    by = (outcome.by.name or outcome.by.id) if outcome.by else ""
    return HoldAnswer(verdict=HoldVerdict.APPROVED, approval_id=ident, by=by)
