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
    item shows it and ends, as a thread's outbox ends after its report. An outbox started here
    holds the item from its start (patch `outbox-item-in-start`): one started empty, its report
    out, could end before the item's signal came, and the item was lost (seen under load: the
    end of a push never told its thread).

    Never raises: a chat surface that cannot be reached must not fail a job or an approval.
    """
    ident = outbox_workflow_id(place.queue, place.channel)
    try:
        if workflow.patched(patches.OUTBOX_ITEM_IN_START):
            await _hand_over(place, ident, item, after_report)
        else:
            await _signal_after_start(place, ident, item, after_report)
    except FailureError as error:  # the outbox finished again: the item has nowhere to go
        workflow.logger.warning(
            "Could not hand %s to the outbox of %s: %s", item.kind, place, error
        )


HAND_OVER_TRIES = 3
"""Starts and signals before an item is given up: each retry follows an outbox that ended
between the look that found it running and the signal, which takes its report's end each time."""


async def _hand_over(place: SurfacePlace, ident: str, item: OutboxItem, after_report: bool) -> None:
    """Start the outbox holding `item`, or signal the running one; one that ended in between is
    started again, its report out, holding the item."""
    outbox = workflow.get_external_workflow_handle(ident)
    reported = after_report
    for tries_left in reversed(range(HAND_OVER_TRIES)):
        state = OutboxState(place=place, reported=reported, items=[item])
        if await start_entity(OUTBOX_WORKFLOW_TYPE, state, id=ident):
            return
        try:
            await outbox.signal(OUTBOX_ENQUEUE_SIGNAL, item)
            return
        except FailureError:
            if not tries_left:
                raise
            reported = True


async def _signal_after_start(
    place: SurfacePlace, ident: str, item: OutboxItem, after_report: bool
) -> None:
    """The way before `outbox-item-in-start`: start the outbox empty, then signal the item."""
    outbox = workflow.get_external_workflow_handle(ident)
    state = OutboxState(place=place, reported=after_report)
    await start_entity(OUTBOX_WORKFLOW_TYPE, state, id=ident)
    try:
        await outbox.signal(OUTBOX_ENQUEUE_SIGNAL, item)
    except FailureError:
        if not workflow.patched(patches.OUTBOX_STARTED_AGAIN):
            raise
        reported = OutboxState(place=place, reported=True)
        await start_entity(OUTBOX_WORKFLOW_TYPE, reported, id=ident)
        await outbox.signal(OUTBOX_ENQUEUE_SIGNAL, item)
