"""The `Ship` workflow: push exactly the reported SHA, after an owner approves it."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError, ChildWorkflowError, WorkflowAlreadyStartedError
from temporalio.workflow import ActivityConfig, ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.desk import DeskActivities
    from activities.ship.ship_activities import ShipActivities
    from desk.decisions.pull_request_plans import pull_request_plan
    from desk.holds.approvals import (
        ApprovalOutcome,
        ApprovalRequest,
        OutcomeKind,
        WithdrawInput,
        approval_id,
    )
    from desk.names import (
        REPO_REQUEST_PUSH_SIGNAL,
        SHIP_PUSH_FINISHED_SIGNAL,
        SHIP_SUPERSEDED_SIGNAL,
        SHIP_WORKFLOW_TYPE,
        push_approval_scope,
    )
    from desk.payloads.jobs import HostPolicyQuery
    from desk.payloads.result_payloads import asked_for_push
    from desk.payloads.ship_payloads import (
        PUSH_PARAMETERS,
        HeadQuery,
        PullRequestPlan,
        PushRequest,
        PushResult,
        PushStatus,
        PushSuperseded,
        ShipAsked,
        ShipInput,
        push_call,
        ship_tool,
    )
    from desk.payloads.surfaces import ThreadText
    from desk.policy.host import HostPolicy

from workflows import patches
from workflows.calls.outbox_calls import send_to_outbox
from workflows.calls.repo_calls import repo_entity
from workflows.calls.result_calls import deliver_result
from workflows.host.host_routes import host_missing, host_route
from workflows.policies import GIT_STEP, HOST_WAIT, POLICY_READ_STEP
from workflows.reasons import reason_of
from workflows.shipping.approval import Approval


@workflow.defn(name=SHIP_WORKFLOW_TYPE)
class Ship:
    """Id `push-<owner>/<repo>-<sha>`: the approval of one push, then the push under the lock.

    The repository's entity answers by name: the push's result once it ran or was refused, and
    its word that the clone moved on past the SHA while the push waited for an owner.
    """

    @workflow.init
    def __init__(self, request: ShipInput) -> None:
        self.request = request
        self.policy: HostPolicy | None = None
        self.push_result: PushResult | None = None
        self.superseded_by: PushSuperseded | None = None
        job = request.agent_ship.job if request.agent_ship else None
        self.pull_request: PullRequestPlan | None = (
            pull_request_plan(request.receipt, job) if request.pull_request else None
        )
        self.asking = False
        """Past the HEAD check: the approval is asked for, or the push is (an exempt repo)."""
        self.result: PushResult | None = None

    @workflow.run
    async def run(self, request: ShipInput) -> PushResult:
        result = self.result = await self._ship(request)
        await self._tell_thread(result)
        if self.policy is not None:
            subject = f"{request.receipt.repo}-{request.receipt.head}"
            asked = asked_for_push(request) if workflow.patched(patches.RESULT_ASKED) else None
            await deliver_result(self.policy.result_delivery, subject, result, asked)
        await workflow.wait_condition(workflow.all_handlers_finished)
        return result

    @workflow.signal(name=SHIP_PUSH_FINISHED_SIGNAL)
    def push_finished(self, result: PushResult) -> None:
        """The repository's entity pushed, or refused to."""
        self.push_result = result

    @workflow.signal(name=SHIP_SUPERSEDED_SIGNAL)
    def superseded(self, notice: PushSuperseded) -> None:
        """The repository's entity: the clone moved on past the SHA (the first word counts)."""
        if self.superseded_by is None:
            self.superseded_by = notice

    @workflow.update
    async def asked(self) -> ShipAsked:
        """Wait until the push asks for its approval (or pushes), or ends without asking:
        `codedesk push` says which, a refusal before any card included."""
        await workflow.wait_condition(lambda: self.asking or self.result is not None)
        return ShipAsked(result=None if self.asking else self.result)

    async def _ship(self, request: ShipInput) -> PushResult:
        receipt = request.receipt
        approved_by, ident = "", ""
        exempt, owners = request.owner_repo, request.owners
        if workflow.patched(patches.SHIP_HOST_POLICY):
            try:
                policy = self.policy = await self._host_policy()
            except ActivityError as error:
                reason = f"The desk's host policy could not be read ({reason_of(error)})"
                return self._unpushed(PushStatus.REFUSED, f"{reason}; nothing was pushed.", "")
            exempt = policy.exempt(receipt.repo) and not request.hold
            owners = policy.owners
        if workflow.patched(patches.SHIP_HEAD_CHECK):
            moved = await self._head_moved()
            if moved:
                return self._unpushed(PushStatus.REFUSED, moved, "")
        self.asking = True
        if not exempt:
            plan = self.pull_request
            ident = approval_id(
                push_approval_scope(receipt.repo), ship_tool(plan), push_call(receipt, plan)
            )
            try:
                outcome = await self._approved(ident, owners)
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
            REPO_REQUEST_PUSH_SIGNAL,
            PushRequest(ship_workflow_id=me, receipt=receipt, pull_request=self.pull_request),
        )
        await workflow.wait_condition(lambda: self.push_result is not None)
        assert self.push_result is not None
        return self.push_result.model_copy(
            update={"approval_id": ident, "approved_by": approved_by}
        )

    async def _tell_thread(self, result: PushResult) -> None:
        """The push a job's agent asked for has ended: the job's thread hears how (its report,
        out before, could only say the push waits for an owner)."""
        ship, place = self.request.agent_ship, self.request.place
        if ship is None or place is None or not workflow.patched(patches.SHIP_OUTCOME_TOLD):
            return
        told = ThreadText(channel=place.channel, job=ship.job, push_result=result)
        await send_to_outbox(place, told, after_report=True)

    async def _approved(self, ident: str, owners: list[str]) -> ApprovalOutcome:
        """An owner's answer; withdrawn for everyone if the clone moves on past the SHA first,
        since approving it then could only be refused."""
        receipt, plan = self.request.receipt, self.pull_request
        title = f"Push {receipt.repo} {receipt.head[:12]} to {receipt.default_branch}"
        action = f"Push {receipt.head} to {receipt.default_branch} at {receipt.destination}"
        if plan is not None:
            title = f"Pull request of {receipt.repo} {receipt.head[:12]} onto {plan.base}"
            action = (
                f"Push {receipt.head} to the new branch {plan.branch} at {receipt.destination} "
                f"and open a pull request onto {plan.base}: {plan.title}"
            )
        ask = ApprovalRequest(
            tool=ship_tool(plan),
            input=push_call(receipt, plan),
            parameters=PUSH_PARAMETERS,
            title=title,
            action=action,
            scope=push_approval_scope(receipt.repo),
            owners=owners,
            origin="discord" if self.request.place else "cli",
            place=self.request.place,
            classes=["push"],
            agent_ship=self.request.agent_ship,
        )
        approval = await workflow.start_child_workflow(
            Approval.run, ask, id=ident, parent_close_policy=ParentClosePolicy.REQUEST_CANCEL
        )
        await workflow.wait_condition(lambda: approval.done() or self.superseded_by is not None)
        if not approval.done() and self.superseded_by is not None:
            reason = (
                f"the clone moved on past {receipt.head[:12]} ({self.superseded_by.reason}): "
                "report again and push the SHA it names"
            )
            await approval.signal(Approval.withdraw, WithdrawInput(reason=reason, by="codedesk"))
        return await approval

    async def _head_moved(self) -> str:
        """Why the SHA cannot be pushed as the clone stands (it is not HEAD), or empty.

        Read on the clone's host. A host with no worker now is not waited for: the card opens,
        and the push itself checks HEAD again under the clone's lock.
        """
        receipt = self.request.receipt
        try:
            found = await workflow.execute_activity_method(
                ShipActivities.clone_head,
                HeadQuery(repo=receipt.repo),
                **(
                    GIT_STEP
                    | host_route(self.request.host, HOST_WAIT)
                    | ActivityConfig(summary=f"reading the HEAD of {receipt.repo}")
                ),
            )
        except ActivityError as error:
            if host_missing(error):
                return ""
            return f"The clone's HEAD could not be read ({reason_of(error)}); nothing was pushed."
        if found.head == receipt.head:
            return ""
        return (
            f"The clone of {receipt.repo} is at {found.head}, not {receipt.head}: run "
            f"`codedesk report {receipt.repo}` and push the SHA it names. Nothing was pushed."
        )

    async def _host_policy(self) -> HostPolicy:
        """Who may approve and which repositories are exempt: the desk's, never the asker's."""
        return await workflow.execute_activity_method(
            DeskActivities.host_policy,
            HostPolicyQuery(purpose=f"push {self.request.receipt.repo}"),
            **(POLICY_READ_STEP | ActivityConfig(summary="reading the host's policy")),
        )

    def _unpushed(self, status: PushStatus, reason: str, ident: str) -> PushResult:
        receipt = self.request.receipt
        return PushResult(
            status=status,
            repo=receipt.repo,
            sha=receipt.head,
            branch=self.pull_request.branch if self.pull_request else receipt.default_branch,
            destination=receipt.destination,
            reason=reason,
            approval_id=ident,
        )
