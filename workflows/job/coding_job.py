"""The `CodingJob` workflow: worktree, agent, integration through the `Repo` entity, report.

The class holds the job's story (`run`) and every message it takes; its state is one dataclass
(`JobState`), its phases one table (`phases.JOB_PHASES`), and each step a function of this
folder. Other workflows reach it by the names in desk/names.py, and it reaches them so.
"""

from __future__ import annotations

import asyncio
from types import MappingProxyType

from temporalio import workflow
from temporalio.exceptions import ActivityError, FailureError

with workflow.unsafe.imports_passed_through():
    from desk.holds.approvals import (
        AgentWorked,
        CallWithdrawal,
        HoldAnswer,
        HoldRequest,
        WithdrawCall,
    )
    from desk.holds.budget_cards import BudgetAnswer, BudgetReason, FinishAnswer, FinishInput
    from desk.names import (
        JOB_ADMIT_SIGNAL,
        JOB_AGENT_INBOX_UPDATE,
        JOB_AGENT_WORKED_SIGNAL,
        JOB_ATTEMPT_NEWS_SIGNAL,
        JOB_ATTEMPT_VERDICT_SIGNAL,
        JOB_FINISH_UPDATE,
        JOB_HOLD_UPDATE,
        JOB_INTEGRATION_FINISHED_SIGNAL,
        JOB_MESSAGES_DELIVERED_SIGNAL,
        JOB_MODES_CHANGED_SIGNAL,
        JOB_PICK_UPDATE,
        JOB_REVIEW_UPDATE,
        JOB_STATE_QUERY,
        JOB_WITHDRAW_CALL_UPDATE,
        JOB_WORKFLOW_TYPE,
    )
    from desk.payloads.conversation.attempt_payloads import AttemptNews, PickAnswer, PickInput
    from desk.payloads.conversation.review_payloads import (
        ReviewAnswer,
        ReviewAnswered,
        ReviewVerdict,
    )
    from desk.payloads.jobs import (
        AgentEnd,
        AgentResult,
        FailureKind,
        IntegrationResult,
        IntegrationStatus,
        JobAdmitted,
        JobInput,
        JobOutcome,
        JobPhase,
        JobReport,
        JobStatus,
        ReasonKind,
        Worktree,
    )
    from desk.payloads.message_payloads import (
        Inbox,
        InboxAsk,
        MessagesDelivered,
        SayAnswer,
        SayInput,
    )
    from desk.payloads.result_payloads import asked_for_job
    from desk.payloads.surfaces import ThreadReport
    from desk.policy.modes import JobModes
    from desk.records.narration import Narration
    from desk.records.repo_setup import CommandRun

from workflows import patches
from workflows.calls.outbox_calls import send_to_outbox
from workflows.calls.result_calls import deliver_result
from workflows.calls.session_calls import keep_session
from workflows.in_flight import cancelled, wait_for_a_person
from workflows.job.agent import run_agent_on_host
from workflows.job.approved_pushes import push_branches, request_ships
from workflows.job.attempts.attempt_news import (
    reviewed_after_the_pick,
    take_verdict,
    tell_ended,
    tell_ready,
    tell_working,
)
from workflows.job.attempts.comparison import compare_attempts, open_attempts, take_news
from workflows.job.attempts.pick import refuse_pick, take_pick
from workflows.job.budget.pause import (
    answer_at_budget,
    finish_here,
    go_on_message,
    open_pause,
    pause_reason,
    refuse_finish,
)
from workflows.job.checks import (
    check_failure,
    check_worktree,
    goes_back,
    last_round,
    send_back,
    set_up_worktree,
)
from workflows.job.holds import answer_hold, close_open_approvals, settled_answer, withdraw_call
from workflows.job.integration import answered, integrate
from workflows.job.job_messages import (
    check_inbox,
    delivered,
    for_messages,
    for_report,
    inbox,
    keep,
    open_continuation,
    refuse,
    take,
)
from workflows.job.job_modes import follow_modes, show_modes
from workflows.job.record.owners_now import read_owners_now
from workflows.job.record.progress import narrate, set_phase
from workflows.job.record.report import build_report, say_cost
from workflows.job.record.state import JobState
from workflows.job.review.answers import refuse_answer, take_answer
from workflows.job.review.waiting import (
    answered_review,
    close_round,
    discarded,
    open_round,
    reviewed_rounds,
    reviews,
)
from workflows.job.slot import (
    admitted,
    give_slot_back_early,
    lend_slot,
    take_slot_again,
    tell_desk,
)
from workflows.job.worktree import cut_worktree, discard_cancelled_worktree, left_behind
from workflows.reasons import reason_of
from workflows.summaries import phase_details

INTEGRATION_OUTCOMES = MappingProxyType(
    {
        IntegrationStatus.INTEGRATED: JobOutcome.INTEGRATED,
        IntegrationStatus.NOTHING: JobOutcome.NOTHING,
        IntegrationStatus.CONFLICT: JobOutcome.CONFLICT,
        IntegrationStatus.REFUSED: JobOutcome.REFUSED,
        IntegrationStatus.WITHDRAWN: JobOutcome.CANCELLED,
        IntegrationStatus.FAILED: JobOutcome.FAILED,
    }
)


def _cancel_reported(error: BaseException) -> bool:
    """Whether `error` is the job's cancel at a step where it once ended the workflow unreported
    (the set-up, the check, a narration): such a cancel ends the job with a report now."""
    if not cancelled(error):
        return False
    workflow.deprecate_patch(patches.CANCEL_AT_EVERY_STEP)
    return True


@workflow.defn(name=JOB_WORKFLOW_TYPE)
class CodingJob:
    """Id `job-<n>`: one coding task on one repository, from worktree to report."""

    @workflow.init
    def __init__(self, job: JobInput) -> None:
        self.state = JobState.of(job)
        show_modes(self.state)

    @workflow.run
    async def run(self, job: JobInput) -> JobReport:
        state = self.state
        open_continuation(state)
        # Not `finally`: a worker evicting this workflow from its cache closes the coroutine,
        # and no workflow call may run then. A failure still frees the desk's slot.
        try:
            if job.attempts:
                open_attempts(state)
                report = await compare_attempts(state)
            else:
                report = await self._admitted_work()
            await close_open_approvals(state)
            if state.ship_asks:
                report.branch_pushes = await push_branches(state, report)
                report.ship_requests = await request_ships(state, report)
        except FailureError:
            await tell_desk(state)
            raise
        await tell_desk(state)
        cap = state.job.report_held_calls
        report.held_calls = state.held_calls[:cap]
        report.held_calls_omitted = max(0, len(state.held_calls) - cap)
        report.yolo_approved = state.yolo_approved[:cap]
        report.yolo_approved_omitted = max(0, len(state.yolo_approved) - cap)
        report.extended_by = state.clock.extended_by
        report.started_at = workflow.info().start_time
        report.finished_at = workflow.now()
        report.usage = report.usage or state.spent
        report.agent_suspended = state.status.suspensions
        report.budget_pauses = list(state.status.budget_pauses)
        report.messages, report.messages_omitted = for_report(state)
        report.check_rounds = state.status.check_rounds
        report.review_rounds = reviewed_rounds(state)
        if job.continues is not None:
            report.continues = job.continues.number
            report.continued_anew = not job.continues.session_id
        if state.session_keep is not None:
            report.session_kept_until = await state.session_keep
        elif state.agent_runs and workflow.patched(patches.SESSION_KEPT):
            report.session_kept_until = await keep_session(state.job)
        report.attempt_of = job.attempt_of
        state.status.report = report
        set_phase(state, JobPhase.DONE, outcome=report.outcome)
        say_cost(report)
        await tell_ended(state, report)
        # Who asked, for a report that cannot be shown where it was asked, and for the hooks.
        asked = asked_for_job(state.job) if workflow.patched(patches.RESULT_ASKED) else None
        if state.job.place is not None and not job.attempt_of:  # an attempt's job reports
            place = state.job.place
            requester = asked.requester if asked is not None else ""
            told = ThreadReport(channel=place.channel, report=report, requester=requester)
            await send_to_outbox(place, told)
        await deliver_result(state.job.result_hooks, str(state.job.number), report, asked)
        return report

    @workflow.query(name=JOB_STATE_QUERY)
    def current(self) -> JobStatus:
        """Where the job is now, and its report once it has one."""
        return self.state.status

    @workflow.signal(name=JOB_ADMIT_SIGNAL)
    def admit(self, message: JobAdmitted) -> None:
        """The desk: a slot is free, the queued job may run (within what is left of the day)."""
        admitted(self.state, message)

    @workflow.signal(name=JOB_MODES_CHANGED_SIGNAL)
    async def modes_changed(self, modes: JobModes) -> None:
        """The desk: a switch changed what this job follows (the job's thread is told)."""
        await follow_modes(self.state, modes)

    @workflow.update(name=JOB_HOLD_UPDATE)
    async def hold(self, request: HoldRequest) -> HoldAnswer:
        """The agent's hook: may its call run? Answered at once, or once a person answered."""
        return await answer_hold(self.state, request)

    @workflow.update(name=JOB_WITHDRAW_CALL_UPDATE)
    async def withdraw_call(self, request: WithdrawCall) -> CallWithdrawal:
        """A person withdraws one of the job's calls (`codedesk withdraw` of an approval that is
        no longer open): a late approval nobody used is forgotten; the call is never held again."""
        return await withdraw_call(self.state, request)

    @workflow.signal(name=JOB_AGENT_WORKED_SIGNAL)
    def agent_worked(self, worked: AgentWorked) -> None:
        """The agent kept working beside a waiting hold: that time counts against the budget."""
        self.state.clock.charge_beside_holds(worked.seconds)

    @workflow.update  # named `say` (JOB_SAY_UPDATE): surfaces call it by reference
    async def say(self, said: SayInput) -> SayAnswer:
        """A person's message to the agent: kept, numbered, and delivered through the agent
        CLI's own seam; the answer says whether it reached the running agent at once."""
        return await take(self.state, said)

    @say.validator
    def _may_say(self, said: SayInput) -> None:
        """Refused, with nothing kept: a sender who may not, an empty or too long text, or an
        agent whose work is over."""
        refuse(self.state, said)

    @workflow.update(name=JOB_REVIEW_UPDATE)
    def review(self, answer: ReviewAnswer) -> ReviewAnswered:
        """A reviewer integrates or discards the work waiting in review (a revision is a
        message: `say`); the first answer wins, a later one is told which won."""
        return take_answer(self.state, answer)

    @review.validator
    def _may_review(self, answer: ReviewAnswer) -> None:
        refuse_answer(self.state, answer)

    @workflow.update(name=JOB_PICK_UPDATE)
    def pick(self, pick: PickInput) -> PickAnswer:
        """A person picks one of the job's attempts to integrate (or discards them all); the
        first pick wins."""
        return take_pick(self.state, pick)

    @pick.validator
    def _may_pick(self, pick: PickInput) -> None:
        refuse_pick(self.state, pick)

    @workflow.signal(name=JOB_ATTEMPT_NEWS_SIGNAL)
    def attempt_news(self, news: AttemptNews) -> None:
        """One of the job's attempts: where it is now (working, ready for the pick, ended)."""
        take_news(self.state, news)

    @workflow.signal(name=JOB_ATTEMPT_VERDICT_SIGNAL)
    def attempt_verdict(self, answer: ReviewAnswer) -> None:
        """This attempt's job: the pick's answer for its work (integrate, or discard)."""
        take_verdict(self.state, answer)

    @workflow.update(name=JOB_AGENT_INBOX_UPDATE)
    async def agent_inbox(self, ask: InboxAsk) -> Inbox:
        """The running agent's step: the messages it has not had, once there is one."""
        return await inbox(self.state, ask)

    @agent_inbox.validator
    def _inbox_open(self, ask: InboxAsk) -> None:
        check_inbox(self.state, ask)

    @workflow.signal(name=JOB_MESSAGES_DELIVERED_SIGNAL)
    def messages_delivered(self, told: MessagesDelivered) -> None:
        """The agent's step: these messages reached the agent."""
        delivered(self.state, told)

    @workflow.update(name=JOB_FINISH_UPDATE)
    def finish(self, ask: FinishInput) -> FinishAnswer:
        """A person ends the job's agent at its budget card: the job checks and integrates
        what is committed (`codedesk finish`)."""
        return finish_here(self.state, ask)

    @finish.validator
    def _may_finish(self, ask: FinishInput) -> None:
        refuse_finish(self.state, ask)

    @workflow.signal(name=JOB_INTEGRATION_FINISHED_SIGNAL)
    def integration_finished(self, result: IntegrationResult) -> None:
        """The repository's entity: its answer to the job's integration request."""
        answered(self.state, result)

    async def _admitted_work(self) -> JobReport:
        """Wait for the desk's `admit` when the job starts queued, then work."""
        state = self.state
        if not state.admitted:
            set_phase(state, JobPhase.QUEUED)
            try:
                await workflow.wait_condition(lambda: state.admitted)
            except asyncio.CancelledError:
                return build_report(
                    state.job, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED_QUEUED
                )
        return await self._work()

    async def _work(self) -> JobReport:
        state = self.state
        set_phase(state, JobPhase.PREPARING)
        try:
            await narrate(state, Narration.CUTTING)
        except asyncio.CancelledError as error:
            if not _cancel_reported(error):
                raise
            return build_report(
                state.job, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED_BEFORE_AGENT
            )
        try:
            worktree = await cut_worktree(state)
        except (ActivityError, asyncio.CancelledError) as error:
            if cancelled(error):
                await discard_cancelled_worktree(state)
                return build_report(
                    state.job, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED_BEFORE_AGENT
                )
            assert isinstance(error, ActivityError)
            return build_report(state.job, JobOutcome.REFUSED, reason=reason_of(error))
        state.status.branch, state.status.worktree = worktree.branch, worktree.path
        try:
            refused = await set_up_worktree(state, worktree)
            if not refused:
                set_phase(state, JobPhase.WORKING)
                await narrate(state, Narration.WORKING, branch=worktree.branch)
        except (ActivityError, asyncio.CancelledError) as error:
            if not _cancel_reported(error):
                raise
            return await left_behind(
                state, worktree, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED_BEFORE_AGENT
            )
        if refused:
            return await left_behind(state, worktree, JobOutcome.FAILED, refused)

        continued: AgentResult | None = None
        while True:
            worked = await self._agent_works(worktree, continued)
            if isinstance(worked, JobReport):
                return worked
            landed = await self._checked_and_integrated(worktree, worked)
            if isinstance(landed, JobReport):
                return landed
            continued = landed  # a reviewer asked for a revision: its session resumes

    async def _agent_works(
        self, worktree: Worktree, continued: AgentResult | None = None
    ) -> AgentResult | JobReport:
        """Run the agent until it is done: its first run, or (`continued`) a run that resumes
        its session with the messages it has not had (after a failed check, or a review that
        asked for a revision); the report when the job cannot go on."""
        state = self.state
        state.agent_done = False
        finished_here = False
        try:
            agent = await run_agent_on_host(state, worktree, continued=continued)
            while agent is not None:
                if agent.end == AgentEnd.SUSPENDED:
                    agent = await self._suspended(worktree, agent)
                elif for_messages(state, agent):
                    # Messages that did not reach it: resume its session with them.
                    agent = await run_agent_on_host(state, worktree, continued=agent)
                elif (reason := pause_reason(state, agent)) is not None:
                    answer = await self._paused_at_budget(worktree, reason)
                    if answer != BudgetAnswer.GO_ON:
                        finished_here = answer == BudgetAnswer.FINISH
                        break
                    agent = await self._resumed_at_budget(worktree, agent)
                else:
                    break
            state.agent_done = True
        except (ActivityError, asyncio.CancelledError) as error:
            if cancelled(error):
                return await left_behind(
                    state, worktree, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED
                )
            assert isinstance(error, ActivityError)
            return await left_behind(
                state,
                worktree,
                JobOutcome.FAILED,
                reason_of(error),
                kind=ReasonKind.ACTIVITY_FAILED,
                category=FailureKind.ACTIVITY,
            )
        if finished_here and agent is not None:
            return agent  # "finish here": what is committed goes on to the check
        if agent is None or agent.end == AgentEnd.TIMED_OUT:
            report = await left_behind(
                state, worktree, JobOutcome.TIMED_OUT, kind=ReasonKind.OUT_OF_TIME, agent=agent
            )
            report.budget = state.clock.budget
            report.budget_ceiling = state.clock.ceiling if state.clock.extended_by else None
            return report
        if agent.end == AgentEnd.NOT_STARTED:
            return await left_behind(
                state,
                worktree,
                JobOutcome.FAILED,
                agent.reason,
                agent=agent,
                category=FailureKind.NOT_STARTED,
            )
        if agent.end == AgentEnd.FAILED:
            # Only agents of this version end so: recorded histories never take this branch.
            return await left_behind(
                state,
                worktree,
                JobOutcome.FAILED,
                agent.reason,
                agent=agent,
                category=FailureKind.AGENT,
            )
        if agent.exit_code != 0:
            code = agent.exit_code
            killed = code is not None and code < 0
            return await left_behind(
                state,
                worktree,
                JobOutcome.FAILED,
                kind=ReasonKind.KILLED if killed else ReasonKind.EXITED,
                agent=agent,
                category=FailureKind.SIGNAL if killed else FailureKind.EXIT,
            )
        return agent

    async def _checked_and_integrated(
        self, worktree: Worktree, agent: AgentResult
    ) -> JobReport | AgentResult:
        """The agent is done: the owner's check, the review when asked, then the integration,
        and their report; the agent's result when a reviewer asked for a revision."""
        state = self.state
        check: CommandRun | None = None
        review = reviews(state, worktree, agent)
        again = True
        while again:
            try:
                check = await check_worktree(state, worktree, agent)
                again = goes_back(state, check)
            except (ActivityError, asyncio.CancelledError) as error:
                if not _cancel_reported(error):
                    raise
                report = await left_behind(
                    state, worktree, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED, agent=agent
                )
                report.check = check
                return report
            if again and check is not None:
                send_back(state, check)
                fixed = await self._agent_works(worktree, continued=agent)
                if isinstance(fixed, JobReport):
                    fixed.check = check
                    return fixed
                agent = fixed
        last_round(state, check)
        try:
            if review:
                verdict = await self._reviewed(check, worktree, agent)
                if verdict == ReviewVerdict.REVISE:
                    return agent
                if verdict == ReviewVerdict.DISCARD:
                    return await discarded(state, worktree, agent, check)
            if check is None or not check.blocking():
                set_phase(state, JobPhase.INTEGRATING)
                await narrate(state, Narration.INTEGRATING)
        except (ActivityError, asyncio.CancelledError) as error:
            if not _cancel_reported(error):
                raise
            report = await left_behind(
                state, worktree, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED, agent=agent
            )
            report.check = check
            return report
        if check is not None and check.blocking():
            report = await left_behind(
                state, worktree, JobOutcome.FAILED, check_failure(check), agent=agent
            )
            report.check = check
            return report
        give_slot_back_early(state)
        if workflow.patched(patches.SESSION_KEPT_BESIDE_INTEGRATION):
            # The keep's start goes out while the repository integrates, off the report's path.
            state.session_keep = asyncio.create_task(keep_session(state.job))
        result = await integrate(state, worktree)
        report = build_report(
            state.job,
            INTEGRATION_OUTCOMES[result.status],
            reason=result.reason,
            worktree=worktree,
            agent=agent,
            integration=result,
            category=(
                FailureKind.INTEGRATION
                if result.status == IntegrationStatus.FAILED
                else FailureKind.NONE
            ),
        )
        if result.reason_kind == ReasonKind.INTEGRATION_WAITED:
            report.integration_wait = state.job.integration_wait
        report.check = check
        return report

    async def _paused_at_budget(self, worktree: Worktree, reason: BudgetReason) -> BudgetAnswer:
        """The agent reached its budget: lend the slot and ask on a budget card; a "go on"
        leaves the agent a note in the conversation, which its resumed session reads first."""
        state = self.state
        open_pause(state, reason)
        await lend_slot(state)
        answer = await answer_at_budget(state, worktree)
        if answer == BudgetAnswer.GO_ON:
            keep(state, go_on_message(state))
        return answer

    async def _resumed_at_budget(
        self, worktree: Worktree, agent: AgentResult
    ) -> AgentResult | None:
        """A person let the paused agent go on: take a slot again and resume its session with
        the note that it may (a message, delivered as messages after a run are)."""
        state = self.state
        set_phase(state, JobPhase.QUEUED)
        await take_slot_again(state)
        set_phase(state, JobPhase.WORKING)
        await narrate(state, Narration.RESUMED, branch=worktree.branch)
        return await run_agent_on_host(state, worktree, continued=agent)

    async def _reviewed(
        self, check: CommandRun | None, worktree: Worktree, agent: AgentResult
    ) -> ReviewVerdict:
        """Wait in review for the first answer, with no process and no slot (the work clock
        stands still); a revision takes a slot again, and the agent works once more. An
        attempt waits so for its job's pick, and tells its job."""
        state = self.state
        if not state.job.attempt_of:  # an attempt's job counts who may pick
            await read_owners_now(state)  # before the round opens: an answer counts them
        open_round(state, check)
        await narrate(state, Narration.REVIEW, branch=state.status.branch)
        await lend_slot(state)
        await tell_ready(state, worktree, check, agent.output)
        await wait_for_a_person(lambda: answered_review(state) or reviewed_after_the_pick(state))
        if reviewed_after_the_pick(state):  # picked: people review it as any reviewed job
            await narrate(state, Narration.REVIEW, branch=state.status.branch)
            await wait_for_a_person(lambda: answered_review(state))
        verdict = close_round(state)
        if verdict == ReviewVerdict.REVISE:
            await tell_working(state)
            set_phase(state, JobPhase.QUEUED)
            await take_slot_again(state)
            set_phase(state, JobPhase.WORKING)
            state.agent_done = False
            await narrate(state, Narration.REVISING, branch=state.status.branch)
        return verdict

    async def _suspended(self, worktree: Worktree, agent: AgentResult) -> AgentResult | None:
        """The agent deferred a held call nobody answered in its live window and ended (or,
        a CLI that cannot defer, was ended): wait for the approval with no process and no slot
        (the work clock stands still), then take a slot again and resume the agent's session,
        whose hook gets the approval's answer (codex: whose prompt tells it; an approved call
        is then allowed once)."""
        state = self.state
        ident = agent.deferred_approval
        _, action = state.held_actions.get(ident, ("", ident))
        state.status.suspended_for = action
        state.status.suspensions += 1
        set_phase(state, JobPhase.SUSPENDED)
        said = f"waiting for approval, suspended: {action}"
        workflow.set_current_details(phase_details(state.job, said))
        await narrate(state, Narration.SUSPENDED, held=action)
        await lend_slot(state)
        pending = state.approvals.get(ident)
        if pending is not None:
            # The suspended agent waits on it: an approval now is not one "approved late".
            state.hold_waiters[ident] = state.hold_waiters.get(ident, 0) + 1
            try:
                await wait_for_a_person(pending.done)
            finally:
                state.hold_waiters[ident] -= 1
            state.resuming_approval = ident
            if agent.ended_to_suspend:  # codex: its resumed thread is told the answer
                state.told_answer = settled_answer(state, ident, pending.result())
        state.status.suspended_for = ""
        set_phase(state, JobPhase.QUEUED)
        await take_slot_again(state)
        set_phase(state, JobPhase.WORKING)
        await narrate(state, Narration.RESUMED, branch=worktree.branch)
        return await run_agent_on_host(state, worktree, agent)
