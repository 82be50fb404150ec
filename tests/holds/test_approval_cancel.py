"""An approval cancelled while its card is on the way to the chat thread closes that card.

A job's held call, or a push, opens an `Approval` that cancels with its parent. Its first step
hands its card to the thread's outbox; a cancel that lands while that signal is in flight was
swallowed by the SDK (workflows/in_flight.py), and the card stayed open after its job or push
had ended, for someone to approve in vain. The held task is made by
tests/helpers/stand_ins/held_signal.py.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import SignalExternalWorkflowInput

from desk.config.settings import DeskSettings
from desk.holds.approvals import OutcomeKind, SurfacePlace
from desk.names import OUTBOX_ENQUEUE_SIGNAL
from desk.payloads.surfaces import ThreadCard
from tests.helpers.holds.approval_workflows import outcome_of, request, start
from tests.helpers.stand_ins.held_signal import GATE, PATIENCE, Message, WorkflowsOnTheirOwnThread


@pytest.fixture
async def held_workflows(settings: DeskSettings) -> AsyncIterator[None]:
    GATE.which = None
    async with WorkflowsOnTheirOwnThread(settings):
        yield


async def test_a_cancel_while_the_card_is_on_its_way_settles_and_closes_the_card(
    client: Client, settings: DeskSettings, held_workflows: None
) -> None:
    place = SurfacePlace(queue=f"no-surface-{uuid.uuid4().hex[:8]}", channel="thread-1")

    def card_shown(sent: Message) -> bool:
        return (
            isinstance(sent, SignalExternalWorkflowInput)
            and sent.signal == OUTBOX_ENQUEUE_SIGNAL
            and bool(sent.args)
            and isinstance(sent.args[0], ThreadCard)
        )

    GATE.arm(card_shown)
    handle = await start(client, settings.task_queue, request(place=place))
    assert await asyncio.to_thread(GATE.held.wait, PATIENCE), "the card was never sent"
    await handle.cancel()  # on the server once this returns: the card is still in flight
    GATE.send.set()

    outcome = await outcome_of(handle)
    assert outcome.kind == OutcomeKind.CANCELLED, outcome
    told = []
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED:
            told.append("cancel")
        attributes = event.signal_external_workflow_execution_initiated_event_attributes
        if attributes.signal_name == OUTBOX_ENQUEUE_SIGNAL:
            told.append("card")
    # The cancel met the card in flight, and a second message (the settled card) closed it.
    assert told == ["card", "cancel", "card"], told
