"""The `Ship` workflow: push exactly the reported SHA, after an owner approves it."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError, ChildWorkflowError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.desk import DeskActivities
    from desk.approvals import ApprovalRequest, OutcomeKind, approval_id
    from desk.host_policy import HostPolicy
    from desk.models import HostPolicyQuery
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
from workflows.policies import POLICY_READ_RETRY, POLICY_READ_TIMEOUT
from workflows.push_reply import AwaitsPush
from workflows.reasons import reason_of
from workflows.repo import RepoEntity
from workflows.repo_calls import repo_entity

HOST_POLICY = "ship-host-policy"
"""Patch: whether the push waits for an owner, and who may approve, is the desk's host policy."""


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
        exempt, owners = request.owner_repo, request.owners
        if workflow.patched(HOST_POLICY):
            try:
                policy = await self._host_policy()
            except ActivityError as error:
                reason = f"The desk's host policy could not be read ({reason_of(error)})"
                return self._unpushed(PushStatus.REFUSED, f"{reason}; nothing was pushed.", "")
            exempt = policy.exempt(receipt.repo) and not request.hold
            owners = policy.owners
        if not exempt:
            call = push_call(receipt)
            ident = approval_id(f"push-{receipt.repo}", PUSH_TOOL, call)
            ask = ApprovalRequest(
                tool=PUSH_TOOL,
                input=call,
                parameters=PUSH_PARAMETERS,
                title=f"Push {receipt.repo} {receipt.head[:12]} to {receipt.default_branch}",
                action=f"Push {receipt.head} to {receipt.default_branch} at {receipt.destination}",
                scope=f"push-{receipt.repo}",
                owners=owners,
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

    async def _host_policy(self) -> HostPolicy:
        """Who may approve and which repositories are exempt: the desk's, never the asker's."""
        return await workflow.execute_activity_method(
            DeskActivities.host_policy,
            HostPolicyQuery(purpose=f"push {self.request.receipt.repo}"),
            start_to_close_timeout=POLICY_READ_TIMEOUT,
            retry_policy=POLICY_READ_RETRY,
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
