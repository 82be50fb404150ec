"""A job's holds: the agent's hook asks by Update; a person answers through an `Approval` child."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from types import MappingProxyType

from temporalio import workflow
from temporalio.exceptions import ChildWorkflowError, FailureError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.holds.classify import classify_call_activity
    from desk.holds.approvals import (
        AgentShipAsk,
        ApprovalOutcome,
        ApprovalRequest,
        CallWithdrawal,
        CallWithdrawalKind,
        ClassifyInput,
        HeldCall,
        HeldNote,
        HoldAnswer,
        HoldRequest,
        HoldVerdict,
        HoldWhy,
        OutcomeKind,
        WithdrawCall,
        WithdrawInput,
        approval_id,
        approval_id_of_digest,
        held_summary,
    )
    from desk.names import APPROVAL_WITHDRAW_SIGNAL, APPROVAL_WORKFLOW_TYPE, JOB_HOLD_UPDATE
    from workflows.policies import CLASSIFY_STEP

from workflows import patches
from workflows.job.job_modes import approve_by_yolo, release_by_yolo, yolo_approves
from workflows.job.record.phases import JOB_PHASES
from workflows.job.record.state import JobState
from workflows.reasons import reason_of
from workflows.summaries import approval_summary

VERDICTS = MappingProxyType(
    {
        OutcomeKind.APPROVED: HoldVerdict.APPROVED,
        OutcomeKind.DECLINED: HoldVerdict.DECLINED,
        OutcomeKind.WITHDRAWN: HoldVerdict.WITHDRAWN,
        OutcomeKind.EXPIRED: HoldVerdict.EXPIRED,
        OutcomeKind.CANCELLED: HoldVerdict.WITHDRAWN,
    }
)


async def answer_hold(state: JobState, request: HoldRequest) -> HoldAnswer:
    """May the agent's call run? Answers at once, or when a person has answered.

    Only a phase that answers `hold` (the phase table) takes the call; in any other the answer
    is a refusal that names the phase. While any hold waits, the job's work clock stands still,
    so the work-time budget never counts time spent waiting for a person; the hold channel
    signals `agent_worked` for the time the agent kept working beside a waiting hold, and that
    time counts. An approval approved after every hook waiting on it gave up is honoured once,
    by the next identical call, and listed in the report as approved late. A call a person
    withdrew is never held again: an identical call is refused as withdrawn, without a card.
    """
    status = state.status
    if not JOB_PHASES.answers(status.phase, JOB_HOLD_UPDATE) or not status.worktree:
        return HoldAnswer(
            verdict=HoldVerdict.DECLINED,
            why=HoldWhy.NOT_WORKING,
            job=state.job.number,
            phase=status.phase,
        )
    state.waiting_holds += 1
    try:
        return await _hold(state, request)
    finally:
        state.waiting_holds -= 1


async def _hold(state: JobState, request: HoldRequest) -> HoldAnswer:
    scope = workflow.info().workflow_id
    summary = request.summary
    if summary is not None:  # the hold channel classified the call on its full input
        classes, action = summary.classes, summary.action
        ident = approval_id_of_digest(scope, summary.digest)
    else:
        found = await workflow.execute_activity(
            classify_call_activity,
            ClassifyInput(
                tool=request.tool,
                input=request.input,
                workspace=state.status.worktree,
                hold_classes=state.job.hold_classes,
                hold_tools=state.job.hold_tools,
                scrubbed=request.scrubbed,
            ),
            **CLASSIFY_STEP,
        )
        classes, action = found.classes, found.action
        ident = approval_id(scope, request.tool, request.input)
    if not classes:
        return HoldAnswer(verdict=HoldVerdict.ALLOWED, why=HoldWhy.ALLOWED)
    # A plain push of the job's work is codedesk's to carry out once approved; yolo never
    # stands in for that approval (a push to the default branch then has a card of its own,
    # for the exact SHA, and one to another branch pushes the commit its card named).
    plain = summary if summary is not None and classes == ["push"] else None
    ships_to = plain.ships_to if plain is not None else ""
    pushes_to = plain.pushes_to if plain is not None and plain.push_head else ""
    carried = bool(ships_to or pushes_to)
    shipping = state.ship_asks.get(ident)
    if shipping is not None:  # approved already: this identical call joins that request
        return _ship_answer(shipping, classes)
    resumed = state.approvals.get(ident)
    if ident == state.resuming_approval and resumed is not None and resumed.done():
        # The resumed agent asks again for the call it deferred: the settled answer, once.
        state.resuming_approval = ""
        return _verdict(state, request.tool, action, classes, resumed.result())
    if ident in state.withdrawn_calls:  # a person withdrew it: never held again
        note = state.withdrawn_calls[ident]
        if (ident, state.approval_rounds.get(ident, 0)) not in state.held_entries:
            _record(state, request.tool, action, HoldVerdict.WITHDRAWN, ident, note)
        return HoldAnswer(
            verdict=HoldVerdict.WITHDRAWN,
            why=HoldWhy.WITHDRAWN,
            note=note,
            classes=classes,
            approval_id=ident,
        )
    if not carried and yolo_approves(state, classes):
        return await approve_by_yolo(state, request.tool, action, classes, ident)
    state.held_actions.setdefault(ident, (request.tool, action))
    late = state.late_approvals.get(ident)
    if late is not None and workflow.patched(patches.LATE_APPROVALS):
        del state.late_approvals[ident]
        _show_late_approvals(state)
        _record(
            state,
            request.tool,
            action,
            HoldVerdict.APPROVED,
            ident,
            kind=HeldNote.APPROVED_LATE_USED,
        )
        return _verdict(state, request.tool, action, classes, late, HoldWhy.APPROVED_LATE)
    pending = state.approvals.get(ident)
    if pending is None or pending.done():
        job = state.job
        ask = ApprovalRequest(
            tool=request.tool,
            input=request.input,
            title=f"Job {job.number} on {job.repo} wants to run {request.tool}",
            action=action,
            parameters=request.parameters,
            scope=scope,
            owners=state.job.owners,
            origin="discord" if state.job.place else "cli",
            place=state.job.place,
            classes=classes,
            input_digest=summary.digest if summary else "",
            input_bytes=summary.input_bytes if summary else 0,
            ships_to=ships_to,
            pushes_to=pushes_to,
            push_head=plain.push_head if plain is not None and pushes_to else "",
            confined=summary.confined if summary else False,
            outside_sandbox=(
                summary is not None
                and summary.outside_sandbox
                and workflow.patched(patches.OUTSIDE_SANDBOX)
            ),
        )
        pending = asyncio.create_task(_ask(state, ident, ask))
        state.approvals[ident] = pending
        state.approval_rounds[ident] = state.approval_rounds.get(ident, 0) + 1
    state.hold_waiters[ident] = state.hold_waiters.get(ident, 0) + 1
    try:
        await workflow.wait_condition(
            lambda: pending.done() or (not carried and yolo_approves(state, classes)),
            timeout=timedelta(seconds=max(request.wait_seconds, 0)),
            timeout_summary=approval_summary(action, request.tool),
        )
    except TimeoutError:
        return HoldAnswer(
            verdict=HoldVerdict.PENDING,
            why=HoldWhy.UNANSWERED,
            classes=classes,
            approval_id=ident,
        )
    finally:
        state.hold_waiters[ident] -= 1
    if not pending.done():  # yolo mode was switched on meanwhile and allows the call
        return await release_by_yolo(state, request.tool, action, classes, ident)
    return _verdict(state, request.tool, action, classes, pending.result())


def settled_answer(state: JobState, ident: str, outcome: ApprovalOutcome) -> tuple[str, HoldAnswer]:
    """The call of approval `ident` and the answer `outcome` gives it, for a suspended agent
    that is told it as a message (codex) rather than asked again by its hook: a refusal is
    listed in the report now, as that hook's answer would have listed it."""
    tool, action = state.held_actions.get(ident, ("", ""))
    return action, _verdict(state, tool, action, [], outcome)


async def _ask(state: JobState, ident: str, ask: ApprovalRequest) -> ApprovalOutcome:
    try:
        handle = await workflow.start_child_workflow(
            APPROVAL_WORKFLOW_TYPE,
            ask,
            id=ident,
            parent_close_policy=ParentClosePolicy.REQUEST_CANCEL,
            result_type=ApprovalOutcome,
            static_summary=approval_summary(ask.action, ask.tool),
        )
        outcome: ApprovalOutcome = await handle
    except (ChildWorkflowError, WorkflowAlreadyStartedError) as error:
        # Fail closed: an approval that cannot be asked or did not settle is no approval.
        return ApprovalOutcome(
            kind=OutcomeKind.CANCELLED, approval_id=ident, note=f"No answer: {reason_of(error)}"
        )
    if outcome.kind == OutcomeKind.APPROVED and (ask.ships_to or ask.pushes_to):
        _ship_approved(state, ident, ask, outcome)
    elif outcome.kind == OutcomeKind.APPROVED and not state.hold_waiters.get(ident):
        # Every hook waiting on it gave up: the next identical call may use it, once.
        state.late_approvals[ident] = outcome
        _show_late_approvals(state)
        tool, action = state.held_actions.get(ident, (ask.tool, ask.action))
        _record(state, tool, action, HoldVerdict.APPROVED, ident, kind=HeldNote.APPROVED_LATE)
    elif (
        outcome.kind == OutcomeKind.WITHDRAWN
        and ident not in state.job_withdrew
        and workflow.patched(patches.WITHDRAWN_STAYS)
    ):
        # A person withdrew it: an identical call is refused from now on, and the report lists
        # it (also when no hook waited on it any more).
        state.withdrawn_calls[ident] = outcome.note
        if not state.hold_waiters.get(ident):
            tool, action = state.held_actions.get(ident, (ask.tool, ask.action))
            _record(state, tool, action, HoldVerdict.WITHDRAWN, ident, outcome.note)
    return outcome


def _ship_approved(
    state: JobState, ident: str, ask: ApprovalRequest, outcome: ApprovalOutcome
) -> None:
    """An owner approved the agent's plain push: codedesk asks for the push of the job's
    integrated commit once it integrates, or pushes the HEAD the card named to another
    branch once the agent's run ends (the report lists it, whether a hook waits or not)."""
    by = outcome.by.name or outcome.by.id if outcome.by else ""
    state.ship_asks[ident] = AgentShipAsk(
        job=state.job.number,
        approval_id=ident,
        branch=ask.ships_to or ask.pushes_to,
        approved_by=by,
        sha=ask.push_head if ask.pushes_to else "",
    )
    tool, action = state.held_actions.get(ident, (ask.tool, ask.action))
    _record(state, tool, action, HoldVerdict.SHIP_REQUESTED, ident)


def _verdict(
    state: JobState,
    tool: str,
    action: str,
    classes: list[str],
    outcome: ApprovalOutcome,
    approved: HoldWhy = HoldWhy.APPROVED,
) -> HoldAnswer:
    """The answer a settled approval gives: its verdict, why, who and their note (the hook
    words them)."""
    verdict = VERDICTS[outcome.kind]
    by = outcome.by.name or outcome.by.id if outcome.by else ""
    shipping = state.ship_asks.get(outcome.approval_id)
    if verdict == HoldVerdict.APPROVED and shipping is not None:
        return _ship_answer(shipping, classes)
    if verdict == HoldVerdict.APPROVED:
        return HoldAnswer(
            verdict=verdict,
            why=approved,
            classes=classes,
            approval_id=outcome.approval_id,
            by=by,
        )
    _record(state, tool, action, verdict, outcome.approval_id, outcome.note)
    return HoldAnswer(
        verdict=verdict,
        why=HoldWhy(verdict.value),
        note=outcome.note,
        classes=classes,
        approval_id=outcome.approval_id,
        by=by,
    )


def _record(
    state: JobState,
    tool: str,
    action: str,
    verdict: HoldVerdict,
    ident: str,
    note: str = "",
    kind: HeldNote = HeldNote.NONE,
) -> None:
    """List a call in the report: one entry per asked approval, its latest word kept.

    Holds that joined one approval are one call; a call cancelled while it waits is
    listed once, not once as unanswered and again as withdrawn.
    """
    summary, cut = held_summary(action or tool, state.job.report_held_chars)
    call = HeldCall(
        tool=tool,
        summary=summary,
        verdict=verdict,
        approval_id=ident,
        note=note,
        note_kind=kind,
        summary_cut=cut if workflow.patched(patches.HELD_CUT) else 0,
    )
    key = (ident, state.approval_rounds.get(ident, 0))
    index = state.held_entries.get(key)
    if index is None:
        state.held_entries[key] = len(state.held_calls)
        state.held_calls.append(call)
    else:
        state.held_calls[index] = call


async def withdraw_call(state: JobState, request: WithdrawCall) -> CallWithdrawal:
    """A person withdraws one of the job's calls whose approval may be closed already.

    The first of an approval and a withdrawal wins: an approval answered first stands (the call
    ran, or runs once), except one that came after every hook gave up and that no identical
    call used yet: that one is forgotten. A withdrawn call is never held again, and withdrawing
    it twice changes nothing.
    """
    ident = request.approval_id

    def said(kind: CallWithdrawalKind, outcome: str = "") -> CallWithdrawal:
        return CallWithdrawal(approval_id=ident, kind=kind, job=state.job.number, outcome=outcome)

    if ident in state.withdrawn_calls:
        return said(CallWithdrawalKind.ALREADY)
    note = request.reason or (f"withdrawn by {request.by}" if request.by else "withdrawn")
    if ident in state.late_approvals:
        del state.late_approvals[ident]
        _show_late_approvals(state)
        state.withdrawn_calls[ident] = note
        tool, action = state.held_actions.get(ident, ("", f"approval {ident}"))
        kind = HeldNote.LATE_APPROVAL_WITHDRAWN
        _record(state, tool, action, HoldVerdict.WITHDRAWN, ident, note, kind=kind)
        return said(CallWithdrawalKind.FORGOTTEN)
    pending = state.approvals.get(ident)
    if pending is None:
        return said(CallWithdrawalKind.UNKNOWN)
    if not pending.done():
        child = workflow.get_external_workflow_handle(ident)
        try:
            await child.signal(APPROVAL_WITHDRAW_SIGNAL, WithdrawInput(reason=note, by=request.by))
        except FailureError:  # it settled meanwhile: its answer stands
            workflow.logger.info("Approval %s settled before it could be withdrawn.", ident)
        return said(CallWithdrawalKind.WITHDRAWING)
    outcome = pending.result()
    approved = outcome.kind == OutcomeKind.APPROVED or any(
        call.approval_id == ident for call in state.yolo_approved
    )
    if approved:
        return said(CallWithdrawalKind.APPROVED)
    return said(CallWithdrawalKind.SETTLED, outcome.kind.value)


def _show_late_approvals(state: JobState) -> None:
    """Keep the status's list of unused late approvals (`codedesk withdraw` reads it)."""
    state.status.late_approvals = sorted(state.late_approvals)


async def close_open_approvals(state: JobState) -> None:
    """At the job's end: withdraw approvals nobody answered, and list them as unanswered."""
    for ident, pending in state.approvals.items():
        if pending.done():
            continue
        state.job_withdrew.add(ident)
        child = workflow.get_external_workflow_handle(ident)
        try:
            await child.signal(APPROVAL_WITHDRAW_SIGNAL, WithdrawInput(reason="The job has ended."))
        except FailureError:  # it settled meanwhile; the REQUEST_CANCEL close policy covers it
            workflow.logger.info("Approval %s closed before it could be withdrawn.", ident)
        tool, action = state.held_actions.get(ident, ("", f"approval {ident}"))
        _record(state, tool, action, HoldVerdict.PENDING, ident, kind=HeldNote.UNANSWERED_AT_END)
    # Holds still waiting get their (withdrawn) answer before the job closes, so no hook is
    # left with an update the closed job can no longer answer.
    await workflow.wait_condition(workflow.all_handlers_finished)


def _ship_answer(ask: AgentShipAsk, classes: list[str]) -> HoldAnswer:
    """The call does not run: codedesk pushes instead (the hook words it as a refusal that says
    what will happen, so the agent neither retries it nor works around it)."""
    return HoldAnswer(
        verdict=HoldVerdict.SHIP_REQUESTED,
        why=HoldWhy.BRANCH_PUSH_REQUESTED if ask.sha else HoldWhy.SHIP_REQUESTED,
        classes=classes,
        approval_id=ask.approval_id,
        by=ask.approved_by,
        branch=ask.branch,
        sha=ask.sha,
    )
