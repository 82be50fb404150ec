"""Handing an item to a channel's `Outbox` from any workflow, by the outbox's names only."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from desk.holds.approvals import SurfacePlace
    from desk.names import OUTBOX_ENQUEUE_SIGNAL, OUTBOX_WORKFLOW_TYPE, outbox_workflow_id
    from desk.payloads.surfaces import OutboxItem, OutboxState

from workflows.children import start_entity


async def send_to_outbox(place: SurfacePlace, item: OutboxItem) -> None:
    """From a workflow: hand `item` to the place's outbox, starting the outbox if need be.

    Never raises: a chat surface that cannot be reached must not fail a job or an approval.
    """
    ident = outbox_workflow_id(place.queue, place.channel)
    try:
        await start_entity(OUTBOX_WORKFLOW_TYPE, OutboxState(place=place), id=ident)
        outbox = workflow.get_external_workflow_handle(ident)
        await outbox.signal(OUTBOX_ENQUEUE_SIGNAL, item)
    except FailureError as error:  # the outbox just finished: a late message has nowhere to go
        workflow.logger.warning(
            "Could not hand %s to the outbox of %s: %s", item.kind, place, error
        )
