"""A job's holds: the agent's hook asks by Update; a person answers through an `Approval` child."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ChildWorkflowError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.holds import classify_call_activity
    from desk.approvals import (
        ApprovalOutcome,
        ApprovalRequest,
        ClassifyInput,
        HeldCall,
        HoldAnswer,
        HoldRequest,
        HoldVerdict,
        OutcomeKind,
        WithdrawInput,
        approval_id,
    )
    from desk.models import JobInput, JobPhase, JobStatus

from workflows.approval import Approval
from workflows.reasons import reason_of

CLASSIFY_TIMEOUT = timedelta(seconds=30)
DO_NOT_RETRY = "Do not retry this call or work around it: carry on without it, or stop and say why."
VERDICTS = {
    OutcomeKind.APPROVED: HoldVerdict.APPROVED,
    OutcomeKind.DECLINED: HoldVerdict.DECLINED,
    OutcomeKind.WITHDRAWN: HoldVerdict.WITHDRAWN,
    OutcomeKind.EXPIRED: HoldVerdict.EXPIRED,
    OutcomeKind.CANCELLED: HoldVerdict.WITHDRAWN,
}


class HoldsCalls:
    """Mixed into `CodingJob`: the `hold` update, and the count of holds waiting for a person.

    While any hold waits, the job's work clock stands still, so the work-time budget never
    counts time spent waiting for a person.
    """

    job: JobInput
    status: JobStatus
    waiting_holds: int = 0
    held_calls: list[HeldCall]
    approvals: dict[str, asyncio.Task[ApprovalOutcome]]

    @workflow.update
    async def hold(self, request: HoldRequest) -> HoldAnswer:
        """May the agent's call run? Answers at once, or when a person has answered."""
        if self.status.phase != JobPhase.WORKING or not self.status.worktree:
            return HoldAnswer(
                verdict=HoldVerdict.DECLINED,
                reason=f"Job {self.job.number} is not working now ({self.status.phase}).",
            )
        self.waiting_holds += 1
        try:
            return await self._hold(request)
        finally:
            self.waiting_holds -= 1

    async def _hold(self, request: HoldRequest) -> HoldAnswer:
        found = await workflow.execute_activity(
            classify_call_activity,
            ClassifyInput(
                tool=request.tool,
                input=request.input,
                workspace=self.status.worktree,
                hold_classes=self.job.hold_classes,
                hold_tools=self.job.hold_tools,
                scrubbed=request.scrubbed,
            ),
            start_to_close_timeout=CLASSIFY_TIMEOUT,
        )
        if not found.classes:
            return HoldAnswer(verdict=HoldVerdict.ALLOWED)
        scope = workflow.info().workflow_id
        ident = approval_id(scope, request.tool, request.input)
        pending = self.approvals.get(ident)
        if pending is None or pending.done():
            ask = ApprovalRequest(
                tool=request.tool,
                input=request.input,
                title=f"Job {self.job.number} on {self.job.repo} wants to run {request.tool}",
                action=found.action,
                parameters=request.parameters,
                scope=scope,
                owners=self.job.owners,
                origin="discord" if self.job.place else "cli",
                place=self.job.place,
                classes=found.classes,
            )
            pending = asyncio.create_task(self._ask(ident, ask))
            self.approvals[ident] = pending
        try:
            await workflow.wait_condition(
                pending.done, timeout=timedelta(seconds=max(request.wait_seconds, 0))
            )
        except TimeoutError:
            return HoldAnswer(
                verdict=HoldVerdict.PENDING,
                reason=(
                    f"Nobody has answered approval {ident} yet; it stays open. Do not work "
                    "around it: carry on without the call, or ask again later (the same call "
                    "joins this approval)."
                ),
                classes=found.classes,
                approval_id=ident,
            )
        return self._verdict(request, found.action, found.classes, pending.result())

    async def _ask(self, ident: str, ask: ApprovalRequest) -> ApprovalOutcome:
        try:
            handle = await workflow.start_child_workflow(
                Approval.run,
                ask,
                id=ident,
                parent_close_policy=ParentClosePolicy.REQUEST_CANCEL,
            )
            return await handle
        except (ChildWorkflowError, WorkflowAlreadyStartedError) as error:
            # Fail closed: an approval that cannot be asked or did not settle is no approval.
            return ApprovalOutcome(
                kind=OutcomeKind.CANCELLED, approval_id=ident, note=f"No answer: {reason_of(error)}"
            )

    def _verdict(
        self, request: HoldRequest, action: str, classes: list[str], outcome: ApprovalOutcome
    ) -> HoldAnswer:
        verdict = VERDICTS[outcome.kind]
        by = outcome.by.name or outcome.by.id if outcome.by else ""
        if verdict == HoldVerdict.APPROVED:
            return HoldAnswer(
                verdict=verdict, classes=classes, approval_id=outcome.approval_id, by=by
            )
        said = f"{verdict.value} by {by}" if by else verdict.value
        note = f" ({outcome.note})" if outcome.note else ""
        self._record(request, action, verdict, outcome.approval_id, outcome.note)
        return HoldAnswer(
            verdict=verdict,
            reason=f"This call was {said}{note}. {DO_NOT_RETRY}",
            classes=classes,
            approval_id=outcome.approval_id,
            by=by,
        )

    def _record(
        self, request: HoldRequest, action: str, verdict: HoldVerdict, ident: str, note: str
    ) -> None:
        summary = (action or f"{request.tool} {request.input}")[: self.job.report_held_chars]
        call = HeldCall(
            tool=request.tool, summary=summary, verdict=verdict, approval_id=ident, note=note
        )
        if call not in self.held_calls:  # two holds that joined one approval are one call
            self.held_calls.append(call)

    async def close_open_approvals(self) -> None:
        """At the job's end: withdraw approvals nobody answered, and list them as unanswered."""
        for ident, pending in self.approvals.items():
            if pending.done():
                continue
            child = workflow.get_external_workflow_handle(ident)
            try:
                await child.signal(Approval.withdraw, WithdrawInput(reason="The job has ended."))
            except Exception:  # it settled meanwhile; the REQUEST_CANCEL close policy covers it
                workflow.logger.info("Approval %s closed before it could be withdrawn.", ident)
            self.held_calls.append(
                HeldCall(
                    tool="",
                    summary=f"approval {ident}",
                    verdict=HoldVerdict.PENDING,
                    approval_id=ident,
                    note="Nobody answered before the job ended.",
                )
            )
        # Holds still waiting get their (withdrawn) answer before the job closes, so no hook is
        # left with an update the closed job can no longer answer.
        await workflow.wait_condition(workflow.all_handlers_finished)
