"""The `Approval` workflow on a real server: one outcome, the first one, whatever comes later."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from desk.config.settings import DeskSettings
from desk.holds.approvals import (
    ApprovalOutcome,
    Decision,
    OutcomeKind,
    Principal,
    WithdrawInput,
    approval_id,
)
from desk.names import IGNORED_MEMO
from surfaces.clients.approval_client import ApprovalsClient
from tests.helpers.holds.approval_workflows import OWNER, Handle, answer, outcome_of, request, start
from tests.helpers.waiting import awaited, eventually
from workers.worker import build_worker
from workflows.shipping.approval import Approval

STRANGER = Principal(id="discord:666", name="stranger")


async def test_approve_by_update_counts_and_settles(
    client: Client, settings: DeskSettings, queue: str
) -> None:
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, request())
        state = await handle.query(Approval.current)
        assert state.outcome is None and state.approval_id == handle.id
        assert state.request.input == {"command": "git push origin main"}
        result = await handle.execute_update(Approval.answer, answer())
        assert result.counted, result
        outcome = await outcome_of(handle)
    assert outcome.kind == OutcomeKind.APPROVED
    assert outcome.by == OWNER
    assert outcome.card_id == "test-card"
    assert outcome.approval_id == handle.id
    assert outcome.at is not None


@pytest.mark.parametrize(
    ("signal", "kind"),
    [("approve", OutcomeKind.APPROVED), ("decline", OutcomeKind.DECLINED)],
)
async def test_approve_and_decline_signals(
    client: Client, settings: DeskSettings, queue: str, signal: str, kind: OutcomeKind
) -> None:
    method = Approval.approve if signal == "approve" else Approval.decline
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, request())
        await handle.signal(method, answer())
        outcome = await outcome_of(handle)
    assert outcome.kind == kind
    assert outcome.by == OWNER


async def test_decline_by_update(client: Client, settings: DeskSettings, queue: str) -> None:
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, request())
        result = await handle.execute_update(Approval.answer, answer(Decision.DECLINE))
        outcome = await outcome_of(handle)
    assert result.counted and result.outcome is not None
    assert result.outcome.kind == OutcomeKind.DECLINED
    assert outcome.kind == OutcomeKind.DECLINED


async def test_withdraw_keeps_the_note(client: Client, settings: DeskSettings, queue: str) -> None:
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, request())
        await handle.signal(Approval.withdraw, WithdrawInput(reason="task cancelled", by="me"))
        outcome = await outcome_of(handle)
    assert outcome.kind == OutcomeKind.WITHDRAWN
    assert outcome.note == "task cancelled"
    assert outcome.by is None


async def test_expiry(client: Client, settings: DeskSettings, queue: str) -> None:
    expires = datetime.now(UTC) + timedelta(seconds=1.5)
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, request(expires_at=expires))
        outcome = await outcome_of(handle)
    assert outcome.kind == OutcomeKind.EXPIRED
    assert outcome.by is None
    assert outcome.at is not None and outcome.at >= expires - timedelta(milliseconds=100)


async def test_an_expiry_in_the_past_settles_at_once(
    client: Client, settings: DeskSettings, queue: str
) -> None:
    past = datetime.now(UTC) - timedelta(minutes=1)
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, request(expires_at=past))
        outcome = await outcome_of(handle)
    assert outcome.kind == OutcomeKind.EXPIRED


# First outcome wins. The messages are sent while no worker polls, so the workflow sees them
# all in one task, in the order they were sent: the later ones meet an approval still running.


async def settle_in_one_task(
    client: Client, settings: DeskSettings, queue: str, *messages: tuple[str, Any]
) -> tuple[ApprovalOutcome, Handle]:
    handle = await start(client, queue, request())
    for name, argument in messages:
        if name == "withdraw":
            await handle.signal(Approval.withdraw, argument)
        else:
            await handle.signal(
                Approval.approve if name == "approve" else Approval.decline, argument
            )
    async with build_worker(client, settings, task_queue=queue):
        outcome = await outcome_of(handle)
    return outcome, handle


@pytest.mark.parametrize(
    ("messages", "kind", "note"),
    [
        (
            [("approve", answer()), ("decline", answer(Decision.DECLINE))],
            OutcomeKind.APPROVED,
            "",
        ),
        (
            [("decline", answer(Decision.DECLINE)), ("withdraw", WithdrawInput(reason="late"))],
            OutcomeKind.DECLINED,
            "",
        ),
        (
            [("withdraw", WithdrawInput(reason="first")), ("approve", answer())],
            OutcomeKind.WITHDRAWN,
            "first",
        ),
        (
            [("withdraw", WithdrawInput(reason="first")), ("withdraw", WithdrawInput(reason="2"))],
            OutcomeKind.WITHDRAWN,
            "first",
        ),
    ],
    ids=["approve-then-decline", "decline-then-withdraw", "withdraw-then-approve", "withdraw-x2"],
)
async def test_first_outcome_wins(
    client: Client,
    settings: DeskSettings,
    queue: str,
    messages: list[tuple[str, Any]],
    kind: OutcomeKind,
    note: str,
) -> None:
    outcome, handle = await settle_in_one_task(client, settings, queue, *messages)
    assert outcome.kind == kind, outcome
    assert outcome.note == note
    if kind in (OutcomeKind.APPROVED, OutcomeKind.DECLINED):
        assert outcome.by == OWNER
    signals = [
        event
        async for event in handle.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
    ]
    assert len(signals) == len(messages)  # every message arrived; only the first counted


async def test_a_late_update_is_refused_by_the_validator(
    client: Client, settings: DeskSettings, queue: str
) -> None:
    handle = await start(client, queue, request())
    await handle.signal(Approval.approve, answer())
    # The update is admitted only once a worker runs its validator: the signal is ahead of it.
    late = asyncio.create_task(handle.execute_update(Approval.answer, answer(Decision.DECLINE)))
    await asyncio.sleep(0.5)
    async with build_worker(client, settings, task_queue=queue):
        with pytest.raises(WorkflowUpdateFailedError) as failed:
            await awaited(late, "the late update's refusal")
        outcome = await outcome_of(handle)
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == "ApprovalSettled", cause
    assert "approved by owner" in cause.message
    assert outcome.kind == OutcomeKind.APPROVED
    kinds = [event.event_type async for event in handle.fetch_history_events()]
    # A rejected update leaves nothing in the history.
    assert EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED not in kinds


async def test_answers_after_settling_do_not_count(
    client: Client, settings: DeskSettings, queue: str
) -> None:
    approvals = ApprovalsClient(client)
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, request())
        first, by_signal = await approvals.answer(handle.id, Decision.APPROVE, OWNER)
        assert first.counted and not by_signal, first
        await outcome_of(handle)
        for decision in (Decision.DECLINE, Decision.APPROVE):
            late, by_signal = await approvals.answer(handle.id, decision, OWNER)
            assert not late.counted and not by_signal, late
            assert "no longer open" in late.reason, late
        # A withdrawal of a closed approval is a clear error, and changes nothing.
        with pytest.raises(Exception, match="no longer open"):
            await approvals.withdraw(handle.id, "too late", OWNER.id)
        with pytest.raises(RPCError):
            await handle.signal(Approval.withdraw, WithdrawInput(reason="too late"))
    assert (await outcome_of(handle)).kind == OutcomeKind.APPROVED


async def test_an_answer_from_a_non_approver_is_ignored_and_recorded(
    client: Client, settings: DeskSettings, queue: str
) -> None:
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, request())
        ignored = await handle.execute_update(Approval.answer, answer(by=STRANGER))
        assert not ignored.counted and "may not answer" in ignored.reason, ignored
        await handle.signal(Approval.decline, answer(Decision.DECLINE, by=STRANGER))
        state = await handle.query(Approval.current)
        assert state.outcome is None
        assert [(item.by, item.decision) for item in state.ignored] == [
            (STRANGER, Decision.APPROVE),
            (STRANGER, Decision.DECLINE),
        ]
        result = await handle.execute_update(Approval.answer, answer(Decision.DECLINE))
        assert result.counted
        outcome = await outcome_of(handle)
    assert outcome.kind == OutcomeKind.DECLINED and outcome.by == OWNER
    events = [event async for event in handle.fetch_history_events()]
    modified = [
        event
        for event in events
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED
    ]
    assert len(modified) == 2, [event.event_type for event in events]
    memo = await (await handle.describe()).memo()
    assert [entry["by"]["id"] for entry in memo[IGNORED_MEMO]] == [STRANGER.id, STRANGER.id]
    assert [entry["decision"] for entry in memo[IGNORED_MEMO]] == ["approve", "decline"]


async def test_named_approvers_replace_the_owners(
    client: Client, settings: DeskSettings, queue: str
) -> None:
    ask = request(approvers=[STRANGER.id])
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, ask)
        owner = await handle.execute_update(Approval.answer, answer())
        assert not owner.counted
        named = await handle.execute_update(Approval.answer, answer(by=STRANGER))
        assert named.counted
        outcome = await outcome_of(handle)
    assert outcome.kind == OutcomeKind.APPROVED and outcome.by == STRANGER


async def test_nobody_may_answer_when_none_are_named(
    client: Client, settings: DeskSettings, queue: str
) -> None:
    ask = request().model_copy(update={"owners": []})
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, ask)
        result = await handle.execute_update(Approval.answer, answer())
        assert not result.counted  # fails closed
        await handle.signal(Approval.withdraw, WithdrawInput(reason="done"))
        assert (await outcome_of(handle)).kind == OutcomeKind.WITHDRAWN


async def test_a_request_that_arrives_withdrawn_is_never_shown(
    client: Client, settings: DeskSettings, queue: str
) -> None:
    approvals = ApprovalsClient(client)
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(
            client,
            queue,
            request(),
            start_signal="withdraw",
            start_signal_args=[WithdrawInput(reason="withdrawn before it was shown")],
        )
        # Look while it may still be listed as running: a settled approval is never open.
        listings = await asyncio.gather(*(approvals.open_approvals() for _ in range(5)))
        outcome = await outcome_of(handle)
        listings.append(await approvals.open_approvals())
    assert outcome.kind == OutcomeKind.WITHDRAWN
    assert outcome.note == "withdrawn before it was shown"
    for listing in listings:
        assert handle.id not in [state.approval_id for state in listing]


async def test_open_approvals_lists_only_unsettled_ones(
    client: Client, settings: DeskSettings, queue: str
) -> None:
    approvals = ApprovalsClient(client)
    async with build_worker(client, settings, task_queue=queue):
        waiting = await start(client, queue, request("git push origin one"))
        settled = await start(client, queue, request("git push origin two"))
        await settled.signal(Approval.withdraw, WithdrawInput(reason="no"))
        await outcome_of(settled)
        await eventually(
            approvals.open_approvals,
            lambda states: [state.approval_id for state in states] == [waiting.id],
            "only the unsettled approval listed",
        )
        await waiting.signal(Approval.withdraw, WithdrawInput(reason="cleanup"))
        await outcome_of(waiting)


def test_identical_calls_share_an_id() -> None:
    first = approval_id("job-1", "Bash", {"command": "git push", "timeout": 5})
    same = approval_id("job-1", "Bash", {"timeout": 5, "command": "git push"})
    assert first == same
    assert first.startswith("approval-job-1-") and len(first.rsplit("-", 1)[1]) == 16
    assert approval_id("job-2", "Bash", {"command": "git push", "timeout": 5}) != first
    assert approval_id("job-1", "Shell", {"command": "git push", "timeout": 5}) != first
    assert approval_id("job-1", "Bash", {"command": "git push ", "timeout": 5}) != first
