"""Handing an item to a channel's `Outbox` from any workflow, by the outbox's names only."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from desk.holds.approvals import SurfacePlace
    from desk.names import OUTBOX_ENQUEUE_SIGNAL, OUTBOX_WORKFLOW_TYPE, outbox_workflow_id
    from desk.payloads.surfaces import OutboxItem, OutboxState

from workflows import patches
from workflows.calls.children import start_entity


async def send_to_outbox(
    place: SurfacePlace, item: OutboxItem, *, after_report: bool = False
) -> None:
    """From a workflow: hand `item` to the place's outbox, starting the outbox if need be.

    `after_report`: the thread's report may be out, and its outbox closed; one started for this
    item shows it and ends, as a thread's outbox ends after its report. An outbox started for it
    waits for the item before it may end (`OutboxState.awaiting`): started with its report out
    and nothing queued, it could end before the signal came, and the item was lost (seen under
    load: a push's end never reached its thread). An outbox that ends between the start (it ran)
    and the signal had its report out: one is started for the item (patch
    `outbox-started-again`), where the item was lost.

    Never raises: a chat surface that cannot be reached must not fail a job or an approval.
    """
    ident = outbox_workflow_id(place.queue, place.channel)
    outbox = workflow.get_external_workflow_handle(ident)
    try:
        state = OutboxState(place=place, reported=after_report, awaiting=after_report)
        await start_entity(OUTBOX_WORKFLOW_TYPE, state, id=ident)
        try:
            await outbox.signal(OUTBOX_ENQUEUE_SIGNAL, item)
        except FailureError:
            if not workflow.patched(patches.OUTBOX_STARTED_AGAIN):
                raise
            reported = OutboxState(place=place, reported=True, awaiting=True)
            await start_entity(OUTBOX_WORKFLOW_TYPE, reported, id=ident)
            await outbox.signal(OUTBOX_ENQUEUE_SIGNAL, item)
    except FailureError as error:  # the outbox finished again: the item has nowhere to go
        workflow.logger.warning(
            "Could not hand %s to the outbox of %s: %s", item.kind, place, error
        )
