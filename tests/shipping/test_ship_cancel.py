"""A push cancelled while its approval starts ends there: nothing is pushed, nothing stays open.

Unlike a signal in flight (workflows/in_flight.py), a child's start in flight passes the cancel
on to the child: the approval is cancelled with the push, so no owner can approve a push that
nobody waits for any more. This test keeps it so. The held task is made by
tests/helpers/stand_ins/held_signal.py.

The server starts a child only while its parent runs: when the push has ended before the
server got to the approval's start, the approval never existed (no card, nothing to answer),
which is as good; the test accepts either.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import CancelledError
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import StartChildWorkflowInput, Worker

from desk.config.settings import DeskSettings
from desk.holds.approvals import OutcomeKind
from desk.names import APPROVAL_WORKFLOW_TYPE, host_task_queue
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.ship_client import ShippingClient
from tests.helpers.jobs.shipping import REPO, commit, refs
from tests.helpers.stand_ins.held_signal import GATE, PATIENCE, Message, WorkflowsOnTheirOwnThread
from tests.helpers.waiting import awaited
from workers.desk_handle import configure_desk
from workers.worker import activities_for, shelf_activities_for
from workflows.shipping.approval import Approval


@pytest.fixture
async def held_shipping(
    client: Client, settings: DeskSettings, origin: Path
) -> AsyncIterator[tuple[ShippingClient, Path]]:
    """A desk whose armed message is held; the shipping client and the clone's path."""
    GATE.which = None
    host_queue = host_task_queue(settings.task_queue, settings.host)
    async with (
        WorkflowsOnTheirOwnThread(settings, activities_for(client, settings)),
        Worker(client, task_queue=host_queue, activities=shelf_activities_for(client, settings)),
    ):
        await configure_desk(client, settings)
        clone = Path((await DeskClient(client, settings).add_repo(REPO, str(origin))).path)
        yield ShippingClient(client, settings), clone


def _approval_starts(sent: Message) -> bool:
    return isinstance(sent, StartChildWorkflowInput) and sent.workflow == APPROVAL_WORKFLOW_TYPE


async def test_a_cancel_while_the_push_approval_starts_ends_the_push_unpushed(
    held_shipping: tuple[ShippingClient, Path], origin: Path
) -> None:
    shipping, clone = held_shipping
    before = refs(origin)
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    GATE.arm(_approval_starts)
    handle, ident = await shipping.request_push(REPO, head)
    assert await asyncio.to_thread(GATE.held.wait, PATIENCE), "the push never asked an owner"
    await handle.cancel()  # on the server once this returns: the approval's start is in flight
    GATE.send.set()

    with pytest.raises(WorkflowFailureError) as ended:
        await awaited(handle.result(), "the push's end")
    assert isinstance(ended.value.cause, CancelledError), ended.value
    approval = shipping.client.get_workflow_handle_for(Approval.run, ident)
    try:
        outcome = await awaited(approval.result(), "the approval's end")
    except RPCError as never:  # its start was dropped with the push
        assert never.status == RPCStatusCode.NOT_FOUND, never
    else:
        assert outcome.kind == OutcomeKind.CANCELLED, outcome
    assert ident not in [
        state.approval_id for state in await ApprovalsClient(shipping.client).open_approvals()
    ]
    assert refs(origin) == before
