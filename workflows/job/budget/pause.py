"""A job's budget pause (issue 47): its agent reached the work budget or the spend limit, and a
person is asked, on a card, whether it goes on, finishes here or stops.

The agent was stopped at that point with its session kept (the work clock cancelled its step,
or its spend stopped it); the job lends its desk slot and waits, with no process, for the
card's answer, an `Approval` like a held call's: approved, the agent goes on with another
budget of the size that ran out, never past the host's ceilings, its session resumed with a
note that it may go on (a message of the job's conversation, delivered as any message after a
run is); `finish` (the job's Update), the job goes on without the agent; declined, the job
ends as its budget ended it. The card waits no time on the work clock. The host decides
whether a job may ask at all and how often (`JobInput.budget_asks`); a CLI whose session the
job cannot resume (no session id) ends as before.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from decimal import Decimal

from temporalio import workflow
from temporalio.exceptions import ChildWorkflowError, FailureError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from desk.errors import BudgetPauseError
    from desk.failures import failure_of
    from desk.holds.approvals import (
        ApprovalOutcome,
        ApprovalRequest,
        OutcomeKind,
        Principal,
        WithdrawInput,
        approval_id_of_digest,
    )
    from desk.holds.budget_cards import (
        GO_ON_MESSAGE,
        BudgetAnswer,
        BudgetCard,
        BudgetPause,
        BudgetReason,
        FinishAnswer,
        FinishInput,
    )
    from desk.holds.held_calls import call_digest
    from desk.names import APPROVAL_WITHDRAW_SIGNAL, APPROVAL_WORKFLOW_TYPE
    from desk.payloads.jobs import AgentEnd, AgentResult, JobPhase, Worktree
    from desk.payloads.message_payloads import SayInput
    from desk.usage.tally import USD

from workflows import patches
from workflows.in_flight import wait_for_a_person
from workflows.job.record.progress import branch_so_far, set_phase
from workflows.job.record.state import JobState
from workflows.summaries import phase_details

BUDGET_TOOL = "budget"
"""The `tool` of a budget card's approval request (no agent tool is named so)."""
GO_ON_SURFACE = "budget"
"""The surface of the go-on message in the job's conversation."""


def pause_reason(state: JobState, agent: AgentResult | None) -> BudgetReason | None:
    """Why the job pauses at its budget now, or None: it ends as the budget always ended it (no
    asks left, a CLI whose session cannot resume, no room under the host's ceilings)."""
    if agent is None or not agent.session_id:
        return None
    if agent.end == AgentEnd.TIMED_OUT:
        reason = BudgetReason.TIME
    elif agent.end == AgentEnd.FAILED and agent.spend_reached:
        reason = BudgetReason.MONEY
    else:
        return None
    if len(state.status.budget_pauses) >= state.job.budget_asks:
        return None
    more_time, more_money = _more(state, reason)
    if more_time is None and more_money is None:
        return None
    if not workflow.patched(patches.BUDGET_ASKS):
        return None
    return reason


def _more(state: JobState, reason: BudgetReason) -> tuple[timedelta | None, Decimal | None]:
    """What "go on" may add now: time up to the host's work ceiling, or money up to its spend
    limit; None where nothing is left (or nothing of that kind ran out)."""
    job = state.job
    if reason == BudgetReason.TIME:
        ceiling = min(job.work_budget_max, job.long_running_max)
        room = ceiling - state.clock.budget
        more = min(job.budget, room)
        return (more if more > timedelta(0) else None), None
    step = state.spend_step
    if step is None or step <= 0:
        return None, None
    spent = _spent(state)
    money = step
    if job.host_spend_limit is not None:
        money = min(step, job.host_spend_limit - spent)
    return None, (money if money > 0 else None)


def _spent(state: JobState) -> Decimal:
    spent = state.spent
    if spent is None or spent.cost is None or spent.currency != USD:
        return Decimal(0)
    return spent.cost


def _room_after(
    state: JobState, reason: BudgetReason, more: timedelta | Decimal | None
) -> tuple[timedelta | None, Decimal | None]:
    """What the host allows past this "go on": (time, money)."""
    job = state.job
    if reason == BudgetReason.TIME and isinstance(more, timedelta):
        ceiling = min(job.work_budget_max, job.long_running_max)
        return ceiling - state.clock.budget - more, None
    if isinstance(more, Decimal) and job.host_spend_limit is not None:
        return None, job.host_spend_limit - _spent(state) - more
    return None, None


def open_pause(state: JobState, reason: BudgetReason) -> BudgetPause:
    """The job pauses at its budget: the pause in its status, its phase `budget_paused` (the
    job lends its slot next)."""
    more_time, more_money = _more(state, reason)
    number = len(state.status.budget_pauses) + 1
    scope = workflow.info().workflow_id
    pause = BudgetPause(
        at=workflow.now(),
        reason=reason,
        approval_id=approval_id_of_digest(scope, call_digest(BUDGET_TOOL, {"pause": number})),
        more_time=more_time,
        more_money=more_money,
    )
    state.status.budget_pauses.append(pause)
    set_phase(state, JobPhase.BUDGET_PAUSED)
    details = f"paused at its {reason.value} budget: waiting for its card's answer"
    workflow.set_current_details(phase_details(state.job, details))
    return pause


async def answer_at_budget(state: JobState, worktree: Worktree) -> BudgetAnswer:
    """Open the budget card and wait (no process, the work clock still) for its answer; on
    "go on", give the agent its new budget (`go_on_message` is the note it reads first)."""
    job = state.job
    pause = state.status.budget_pauses[-1]
    so_far = await branch_so_far(state, worktree, "for the budget card")
    more = pause.more_time or pause.more_money
    time_left, money_left = _room_after(state, pause.reason, more)
    card = BudgetCard(
        job=job.number,
        repo=job.repo,
        task=job.task,
        reason=pause.reason,
        pause=len(state.status.budget_pauses),
        asks_max=job.budget_asks,
        worked=state.clock.worked,
        budget=state.clock.budget,
        spent=state.spent,
        spend_limit=job.spend_limit,
        more_time=pause.more_time,
        more_money=pause.more_money,
        time_left=time_left,
        money_left=money_left,
        commits=so_far.commits,
        commits_omitted=so_far.commits_omitted,
        diffstat=so_far.diffstat,
        uncommitted=so_far.uncommitted,
    )
    ident = pause.approval_id
    ask = ApprovalRequest(
        tool=BUDGET_TOOL,
        title=f"Job {job.number} on {job.repo} reached its {pause.reason.value} budget",
        scope=workflow.info().workflow_id,
        owners=list(job.owners),
        approvers=sorted({*job.owners, *([job.starter] if job.starter else [])}),
        origin="discord" if job.place else "cli",
        place=job.place,
        budget=card,
    )
    # A `finish` may have come while the card was made (the job is paused from `open_pause`
    # on): it stands, and the card that opens after it is closed with the job.
    pending = asyncio.create_task(_ask(ident, ask))
    await wait_for_a_person(lambda: pending.done() or state.finish_by is not None)
    if not pending.done():  # `finish`: the card closes, withdrawn with who finished
        assert state.finish_by is not None
        by = state.finish_by.name or state.finish_by.id
        child = workflow.get_external_workflow_handle(ident)
        try:
            await child.signal(
                APPROVAL_WITHDRAW_SIGNAL, WithdrawInput(reason=f"finished here by {by}", by=by)
            )
        except FailureError:  # it settled meanwhile: the finish stands all the same
            workflow.logger.info("Budget card %s closed before it could be withdrawn.", ident)
        answer, who = BudgetAnswer.FINISH, by
        state.go_on_by = None
    else:
        outcome = pending.result()
        who = outcome.by.name or outcome.by.id if outcome.by else ""
        answer = BudgetAnswer.GO_ON if outcome.kind == OutcomeKind.APPROVED else BudgetAnswer.STOP
        state.go_on_by = outcome.by
    state.finish_by = None
    pause.answer, pause.by, pause.answered_at = answer, who, workflow.now()
    if answer == BudgetAnswer.GO_ON:
        _extend(state, pause)
    return answer


def _extend(state: JobState, pause: BudgetPause) -> None:
    """The agent's new budget: more work time, or more money (the desk's day bounds it again
    when the job is admitted)."""
    if pause.reason == BudgetReason.TIME and pause.more_time is not None:
        state.clock.budget += pause.more_time
    if pause.reason == BudgetReason.MONEY and pause.more_money is not None:
        limit = _spent(state) + pause.more_money
        state.job = state.job.model_copy(update={"spend_limit": limit})


def go_on_message(state: JobState) -> SayInput:
    """The note a "go on" leaves in the job's conversation, from who answered: the resumed
    session reads it first."""
    by = state.go_on_by or Principal(id="codedesk", name="codedesk")
    return SayInput(text=GO_ON_MESSAGE, by=by, surface=GO_ON_SURFACE)


async def _ask(ident: str, ask: ApprovalRequest) -> ApprovalOutcome:
    """The budget card's `Approval` child, and how it settled (fails closed: no answer is a
    stop)."""
    try:
        handle = await workflow.start_child_workflow(
            APPROVAL_WORKFLOW_TYPE,
            ask,
            id=ident,
            parent_close_policy=ParentClosePolicy.REQUEST_CANCEL,
            result_type=ApprovalOutcome,
            static_summary=ask.title,
        )
        outcome: ApprovalOutcome = await handle
    except (ChildWorkflowError, WorkflowAlreadyStartedError) as error:
        return ApprovalOutcome(kind=OutcomeKind.CANCELLED, approval_id=ident, note=str(error))
    return outcome


def finish_here(state: JobState, ask: FinishInput) -> FinishAnswer:
    """`codedesk finish`: the paused job goes on without its agent (the validator refused any
    other phase and anyone who may not answer its card)."""
    state.finish_by = Principal(id=ask.by, name=ask.by_name)
    return FinishAnswer(counted=True, job=state.job.number)


def refuse_finish(state: JobState, ask: FinishInput) -> None:
    """The `finish` validator: only a job waiting at its budget card, and only its requester
    or an owner."""
    number = state.job.number
    if state.status.phase != JobPhase.BUDGET_PAUSED or state.finish_by is not None:
        raise failure_of(
            BudgetPauseError(
                f"Job {number} is not waiting at a budget card (it is {state.status.phase}): "
                "only a paused job finishes here; `codedesk cancel` stops a running one."
            )
        )
    allowed = {*state.job.owners, *([state.job.starter] if state.job.starter else [])}
    if ask.by not in allowed:
        raise failure_of(
            BudgetPauseError(
                f"{ask.by_name or ask.by} may not answer job {number}'s budget card: its "
                "requester and the host's owners may."
            )
        )
