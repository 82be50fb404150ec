"""The `Outbox` workflow: everything shown in one surface channel, in order, durably.

A job's thread and the approval cards shown in it go through one outbox, so a card comes after
the text written before it; while the surface's host (the bot) is down, the outbox waits and
shows everything when it comes back. A card settled before it was posted is never posted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TypeVar

from temporalio import workflow
from temporalio.exceptions import ActivityError
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.surface import SurfaceActivities
    from desk.names import OUTBOX_ENQUEUE_SIGNAL, OUTBOX_WORKFLOW_TYPE
    from desk.payloads.surfaces import (
        CardSettled,
        CloseCard,
        OutboxItem,
        OutboxState,
        PostCard,
        ThreadCard,
        ThreadProgress,
        ThreadReport,
        ThreadText,
    )
    from workflows.policies import SURFACE_STEP

AWAITED_ITEM_WAIT = timedelta(minutes=10)
"""How long an outbox started for an item waits for it: the sender signals it right after the
start, so only a sender ended in between (terminated) leaves it waiting this long."""

A = TypeVar("A")
R = TypeVar("R")


@workflow.defn(name=OUTBOX_WORKFLOW_TYPE)
class Outbox:
    """Id `outbox-<queue>-<channel>`: posts, edits and cards of one channel, one at a time."""

    @workflow.init
    def __init__(self, state: OutboxState) -> None:
        self.state = state

    @workflow.run
    async def run(self, state: OutboxState) -> None:
        while True:
            if not await self._something_to_do():
                continue
            if not self.state.items:
                break
            await self._show(self.state.items.pop(0))
        await workflow.wait_condition(workflow.all_handlers_finished)
        if not self._finished():
            workflow.continue_as_new(self.state)

    async def _something_to_do(self) -> bool:
        """Wait for an item, the outbox's end, or its continue-as-new; False when the item it
        was started for never came (its sender ended before the signal): it waits no more."""

        def ready() -> bool:
            return (
                bool(self.state.items)
                or self._finished()
                or workflow.info().is_continue_as_new_suggested()
            )

        if not self.state.awaiting:
            await workflow.wait_condition(ready)
            return True
        try:
            await workflow.wait_condition(ready, timeout=AWAITED_ITEM_WAIT)
        except TimeoutError:
            self.state.awaiting = False
            return False
        return True

    @workflow.signal(name=OUTBOX_ENQUEUE_SIGNAL)
    def enqueue(self, item: OutboxItem) -> None:
        """Show `item` after everything enqueued before it; a settlement skips a waiting card."""
        self.state.awaiting = False
        if isinstance(item, CardSettled):
            waiting = [
                queued
                for queued in self.state.items
                if isinstance(queued, ThreadCard) and queued.approval_id == item.approval_id
            ]
            if waiting and item.approval_id not in self.state.cards:
                self.state.items = [queued for queued in self.state.items if queued not in waiting]
                return
        self.state.items.append(item)

    @workflow.query
    def current(self) -> OutboxState:
        return self.state

    def _finished(self) -> bool:
        """A job's thread is done once its report is posted, none of its cards is open, and the
        item it was started for has come."""
        state = self.state
        return state.reported and not state.awaiting and not state.cards and not state.items

    async def _show(self, item: OutboxItem) -> None:
        surface = SurfaceActivities
        try:
            if isinstance(item, ThreadCard):
                ref = await self._on_surface(
                    surface.post_card,
                    PostCard(
                        approval_id=item.approval_id,
                        request=item.request,
                        channel=self.state.place.channel,
                    ),
                )
                self.state.cards[item.approval_id] = ref
            elif isinstance(item, CardSettled):
                card = self.state.cards.pop(item.approval_id, None)
                if card is not None:
                    await self._on_surface(
                        surface.close_card,
                        CloseCard(
                            approval_id=item.approval_id,
                            card=card,
                            request=item.request,
                            outcome=item.outcome,
                        ),
                    )
            elif isinstance(item, ThreadText):
                await self._on_surface(surface.post_text, item)
            elif isinstance(item, ThreadProgress):
                await self._on_surface(surface.set_progress, item)
            elif isinstance(item, ThreadReport):
                await self._on_surface(surface.post_report, item)
                self.state.reported = True
        except ActivityError as error:
            workflow.logger.warning(
                "Outbox %s gave up on %s: %s", self.state.place, item.kind, error
            )

    async def _on_surface(self, step: Callable[[SurfaceActivities, A], Awaitable[R]], arg: A) -> R:
        """Run one surface activity on the place's queue, waiting for its host if it is down."""
        return await workflow.execute_activity_method(
            step,
            arg,
            **(
                SURFACE_STEP
                | ActivityConfig(
                    task_queue=self.state.place.queue, summary=step.__name__.replace("_", " ")
                )
            ),
        )
