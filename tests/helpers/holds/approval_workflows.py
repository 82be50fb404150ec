"""The `Approval` workflow started straight on a test's queue: a request, an answer, its outcome."""

from __future__ import annotations

import uuid
from typing import Any

from temporalio.client import Client, WorkflowHandle

from desk.holds.approvals import (
    AnswerInput,
    ApprovalOutcome,
    ApprovalRequest,
    Decision,
    Principal,
    approval_id,
)
from tests.helpers.waiting import awaited
from workflows.shipping.approval import Approval

OWNER = Principal(id="local:owner", name="owner")


Handle = WorkflowHandle[Approval, ApprovalOutcome]


def request(command: str = "git push origin main", **extra: Any) -> ApprovalRequest:
    return ApprovalRequest(
        tool="Bash",
        input={"command": command},
        action=f"Run: {command}",
        scope=f"test-{uuid.uuid4().hex[:8]}",
        owners=[OWNER.id],
        origin="cli",
        classes=["push"],
        **extra,
    )


def answer(decision: Decision = Decision.APPROVE, by: Principal = OWNER) -> AnswerInput:
    return AnswerInput(by=by, decision=decision, card_id="test-card")


async def start(client: Client, queue: str, ask: ApprovalRequest, **options: Any) -> Handle:
    ident = approval_id(ask.scope, ask.tool, ask.input)
    return await client.start_workflow(Approval.run, ask, id=ident, task_queue=queue, **options)


async def outcome_of(handle: Handle) -> ApprovalOutcome:
    return await awaited(handle.result(), "the approval's outcome")
