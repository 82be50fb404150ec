"""A held call's approval, watched by the hold channel: the hook runs as soon as it is approved.

The job answers a waiting hold in its own workflow task after the `Approval` child completes:
a second round trip after the person's answer, and a read of the approval's history. The
channel instead watches the approval open for the call with the approval's `outcome` Update,
which completes in the workflow task that records the person's answer (the same task that
completes the answerer's own Update), and answers the hook at once when that outcome is an
approval; the job's own answer follows and records the call as usual. Only an approval does
this: any other outcome (and any doubt) waits for the job's own answer.

The approval is started by the job a workflow task after the hold reaches it, and Temporal
cannot wait for a workflow to exist: until the watch is accepted, it is tried again at a short
pace. A person's answer before then (only a script answers that fast) is still honoured, by the
job's answer, one round trip later.

Identical calls share one approval, and the channel keeps one watch per approval however many
of them wait: Temporal lets a workflow have at most 10 Updates in flight, and a person's answer
must always find room.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio.client import (
    Client,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.service import RPCError, RPCStatusCode

from desk.holds.approvals import (
    ApprovalOutcome,
    HoldAnswer,
    HoldVerdict,
    HoldWhy,
    OutcomeKind,
    OutcomeWatch,
    approval_id_of_digest,
)
from desk.names import APPROVAL_OUTCOME_UPDATE, job_workflow_id

FIRST_TRY = 0.02
"""Seconds before the watch is tried again when the approval is not open yet."""
LAST_TRY = 0.5
"""The longest pause between tries (the pause grows by half each time)."""


async def approved_early(client: Client, number: int, digest: str) -> HoldAnswer | None:
    """APPROVED once the approval open for this call records an approval; None otherwise.

    Only an approval still open when the watch is accepted is watched: a settled one (an
    earlier round of the same call) refuses the watch, and a closed one cannot take it.
    """
    ident = approval_id_of_digest(job_workflow_id(number), digest)
    handle = client.get_workflow_handle(ident)
    watch = OutcomeWatch(watcher=f"the hold channel of job {number}")
    pause = FIRST_TRY
    while True:
        try:
            outcome: ApprovalOutcome = await handle.execute_update(
                APPROVAL_OUTCOME_UPDATE, watch, result_type=ApprovalOutcome
            )
            break
        except WorkflowUpdateFailedError:
            pass  # settled already: an earlier round, closing; this call's round may follow
        except WorkflowUpdateRPCTimeoutOrCancelledError:
            return None  # the job answered first and the channel stopped watching
        except RPCError as error:
            if not _not_open(error):
                return None  # the job's own answer decides
        await asyncio.sleep(pause)
        pause = min(pause * 1.5, LAST_TRY)
    if outcome.kind != OutcomeKind.APPROVED:
        return None
    by = (outcome.by.name or outcome.by.id) if outcome.by else ""
    return HoldAnswer(verdict=HoldVerdict.APPROVED, why=HoldWhy.APPROVED, approval_id=ident, by=by)


def _not_open(error: RPCError) -> bool:
    """Whether the approval is not started yet or already closed (another round may follow)."""
    return error.status == RPCStatusCode.NOT_FOUND or "completed" in str(error).lower()


def approval_of(watch: asyncio.Task[HoldAnswer | None]) -> HoldAnswer | None:
    """A finished watch's approval; a watch that failed or was stopped is no approval."""
    if watch.cancelled() or watch.exception() is not None:
        return None
    return watch.result()


class _Watch:
    def __init__(self, task: asyncio.Task[HoldAnswer | None]) -> None:
        self.task = task
        self.holds = 0


class ApprovalWatches:
    """A channel's watches: one per call's approval, shared by the holds of that call that wait."""

    def __init__(self, client: Client, number: int) -> None:
        self.client = client
        self.number = number
        self.running: dict[str, _Watch] = {}

    @asynccontextmanager
    async def watching(self, digest: str) -> AsyncIterator[asyncio.Task[HoldAnswer | None]]:
        """The watch of the call with this digest while the block runs; a hold that comes after
        a watch ended gets a new one (a new round of the call's approval)."""
        watch = self.running.get(digest)
        if watch is None or watch.task.done():
            task = asyncio.create_task(approved_early(self.client, self.number, digest))
            task.add_done_callback(approval_of)  # its failure is read, and means no approval
            watch = self.running[digest] = _Watch(task)
        watch.holds += 1
        try:
            yield watch.task
        finally:
            watch.holds -= 1
            if not watch.holds:
                watch.task.cancel()
                if self.running.get(digest) is watch:
                    del self.running[digest]
