"""The `Ship` workflow: push exactly the reported SHA, after an owner approves it."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ChildWorkflowError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from desk.approvals import ApprovalRequest, OutcomeKind, approval_id
    from desk.shipping import (
        PUSH_PARAMETERS,
        PUSH_TOOL,
        PushRequest,
        PushResult,
        PushStatus,
        ShipInput,
        push_call,
    )

from workflows.approval import Approval
from workflows.push_reply import AwaitsPush
from workflows.reasons import reason_of
from workflows.repo import RepoEntity
from workflows.repo_calls import repo_entity


@workflow.defn(name="Ship")
class Ship(AwaitsPush):
    """Id `push-<owner>/<repo>-<sha>`: the approval of one push, then the push under the lock."""

    @workflow.init
    def __init__(self, request: ShipInput) -> None:
        self.request = request

    @workflow.run
    async def run(self, request: ShipInput) -> PushResult:
        receipt = request.receipt
        approved_by, ident = "", ""
        if not request.owner_repo:
            call = push_call(receipt)
            ident = approval_id(f"push-{receipt.repo}", PUSH_TOOL, call)
            ask = ApprovalRequest(
                tool=PUSH_TOOL,
                input=call,
                parameters=PUSH_PARAMETERS,
                title=f"Push {receipt.repo} {receipt.head[:12]} to {receipt.default_branch}",
                action=f"Push {receipt.head} to {receipt.default_branch} at {receipt.destination}",
                scope=f"push-{receipt.repo}",
                owners=request.owners,
                origin="discord" if request.place else "cli",
                place=request.place,
                classes=["push"],
            )
            try:
                outcome = await workflow.execute_child_workflow(
                    Approval.run,
                    ask,
                    id=ident,
                    parent_close_policy=ParentClosePolicy.REQUEST_CANCEL,
                )
            except (ChildWorkflowError, WorkflowAlreadyStartedError) as error:
                return self._unpushed(
                    PushStatus.REFUSED, f"The approval failed: {reason_of(error)}", ident
                )
            if outcome.kind != OutcomeKind.APPROVED:
                status = (
                    PushStatus.DECLINED
                    if outcome.kind == OutcomeKind.DECLINED
                    else PushStatus.WITHDRAWN
                )
                note = f" ({outcome.note})" if outcome.note else ""
                who = f" by {outcome.by.name or outcome.by.id}" if outcome.by else ""
                reason = f"The push was {outcome.kind.value}{who}{note}; nothing was pushed."
                return self._unpushed(status, reason, ident)
            approved_by = outcome.by.name or outcome.by.id if outcome.by else ""
        entity = await repo_entity(receipt.repo)
        me = workflow.info().workflow_id
        await entity.signal(
            RepoEntity.request_push, PushRequest(ship_workflow_id=me, receipt=receipt)
        )
        await workflow.wait_condition(lambda: self.push_result is not None)
        assert self.push_result is not None
        return self.push_result.model_copy(
            update={"approval_id": ident, "approved_by": approved_by}
        )

    def _unpushed(self, status: PushStatus, reason: str, ident: str) -> PushResult:
        receipt = self.request.receipt
        return PushResult(
            status=status,
            repo=receipt.repo,
            sha=receipt.head,
            branch=receipt.default_branch,
            destination=receipt.destination,
            reason=reason,
            approval_id=ident,
        )
