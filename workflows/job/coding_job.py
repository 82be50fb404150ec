"""The `CodingJob` workflow: worktree, agent, integration through the `Repo` entity, report."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta
from types import MappingProxyType
from typing import TypeVar

from temporalio import workflow
from temporalio.common import SearchAttributeUpdate
from temporalio.exceptions import ActivityError, CancelledError, FailureError
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.agent.run import AgentActivities
    from activities.git.worktrees import WorktreeActivities
    from desk.names import (
        JOB_WORKFLOW_TYPE,
        OUTCOME_ATTRIBUTE,
        PHASE_ATTRIBUTE,
        WAITING_HOST_ATTRIBUTE,
    )
    from desk.payloads.jobs import (
        AgentEnd,
        AgentResult,
        FailureKind,
        IntegrationRequest,
        IntegrationResult,
        IntegrationStatus,
        JobInput,
        JobOutcome,
        JobPhase,
        JobReport,
        JobStatus,
        PrepareWorktreeInput,
        ReasonKind,
        ReleaseWorktreeInput,
        RunAgentInput,
        Worktree,
    )
    from desk.payloads.narration import Narration
    from desk.payloads.repo_setup import CommandRun
    from desk.payloads.results import asked_for_job
    from desk.payloads.surfaces import ThreadProgress, ThreadReport
    from desk.policy.modes import Mode
    from workflows.policies import GIT_STEP, agent_step

from workflows.desk.admission import AwaitsAdmission
from workflows.hosts import Route, on_host
from workflows.in_flight import CANCEL_IN_FLIGHT_PATCH, heeding_cancel
from workflows.job.checks import check_failure, check_worktree, set_up_worktree
from workflows.job.cost import say_cost
from workflows.job.discard import discard_cancelled_worktree
from workflows.job.holds import HoldsCalls
from workflows.job.reasons import reason_of
from workflows.job.report import build_report
from workflows.job.ship_requests import push_branches, request_ships
from workflows.job.slot import HoldsDeskSlot
from workflows.job.state import JobState
from workflows.outbox_calls import send_to_outbox
from workflows.repo.calls import Entity, queue_integration, repo_handle, withdraw_integration
from workflows.repo.integration_reply import AwaitsIntegration
from workflows.result_calls import RESULT_ASKED_PATCH, deliver_result
from workflows.summaries import agent_summary, phase_details

T = TypeVar("T")

SUSPENSION_PATCH = "agent-suspends-for-approvals"
"""Patch: the job's agent may defer a held call and end; the job then waits for the approval
without it (jobs started before wait in the live hook, as they did)."""

CANCEL_AT_EVERY_STEP_PATCH = "job-cancel-reported-at-every-step"
"""Patch: a cancel that arrives during the set-up, the check or a narration ends the job with a
report, as one during the cut or the agent does (before, it ended the workflow unreported)."""

WITHDRAW_WAIT = timedelta(minutes=2)
"""How long a cancelled job waits for its repository to confirm a withdrawal."""

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


def _cancelled(error: BaseException) -> bool:
    return isinstance(error, asyncio.CancelledError) or (
        isinstance(error, ActivityError) and isinstance(error.cause, CancelledError)
    )


def _withdrawn() -> IntegrationResult:
    """A cancelled job's integration, given up with no answer from its repository's entity."""
    return IntegrationResult(
        status=IntegrationStatus.WITHDRAWN,
        reason_kind=ReasonKind.INTEGRATION_WITHDRAWN,
        branch_kept=True,
    )


def _cancel_reported(error: BaseException) -> bool:
    """Whether `error` is the job's cancel at a step where it once ended the workflow unreported
    (jobs started before the patch still end so on replay)."""
    return _cancelled(error) and workflow.patched(CANCEL_AT_EVERY_STEP_PATCH)


@workflow.defn(name=JOB_WORKFLOW_TYPE)
class CodingJob(AwaitsIntegration, AwaitsAdmission, HoldsDeskSlot, HoldsCalls):
    """Id `job-<n>`: one coding task on one repository, from worktree to report."""

    @workflow.init
    def __init__(self, job: JobInput) -> None:
        self.state = JobState.of(job)
        self.show_modes()

    @workflow.run
    async def run(self, job: JobInput) -> JobReport:
        # Not `finally`: a worker evicting this workflow from its cache closes the coroutine,
        # and no workflow call may run then. A failure still frees the desk's slot.
        try:
            report = await self._admitted_work()
            await self.close_open_approvals()
            if self.state.ship_asks:
                report.branch_pushes = await push_branches(self.state, report)
                report.ship_requests = await request_ships(self.state, report)
        except FailureError:
            await self.tell_desk()
            raise
        await self.tell_desk()
        cap = self.state.job.report_held_calls
        report.held_calls = self.state.held_calls[:cap]
        report.held_calls_omitted = max(0, len(self.state.held_calls) - cap)
        report.yolo_approved = self.state.yolo_approved[:cap]
        report.yolo_approved_omitted = max(0, len(self.state.yolo_approved) - cap)
        report.extended_by = self.state.clock.extended_by
        report.started_at = workflow.info().start_time
        report.finished_at = workflow.now()
        report.usage = report.usage or self.state.spent
        report.agent_suspended = self.state.status.suspensions
        self.state.status.report = report
        self._set_phase(JobPhase.DONE, outcome=report.outcome)
        say_cost(report)
        # Who asked, for a report that cannot be shown where it was asked, and for the hooks.
        asked = asked_for_job(self.state.job) if workflow.patched(RESULT_ASKED_PATCH) else None
        if self.state.job.place is not None:
            place = self.state.job.place
            requester = asked.requester if asked is not None else ""
            told = ThreadReport(channel=place.channel, report=report, requester=requester)
            await send_to_outbox(place, told)
        await deliver_result(self.state.job.result_hooks, str(self.state.job.number), report, asked)
        return report

    @workflow.query
    def current(self) -> JobStatus:
        """Where the job is now, and its report once it has one."""
        return self.state.status

    async def _admitted_work(self) -> JobReport:
        """Wait for the desk's `admit` when the job starts queued, then work."""
        if not self.state.admitted:
            self._set_phase(JobPhase.QUEUED)
            try:
                await workflow.wait_condition(lambda: self.state.admitted)
            except asyncio.CancelledError:
                return build_report(
                    self.state.job, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED_QUEUED
                )
        return await self._work()

    async def _work(self) -> JobReport:
        self._set_phase(JobPhase.PREPARING)
        try:
            await self._narrate(Narration.CUTTING)
        except asyncio.CancelledError as error:
            if not _cancel_reported(error):
                raise
            return build_report(
                self.state.job, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED_BEFORE_AGENT
            )
        try:
            worktree = await self._on_host(
                lambda route: workflow.execute_activity_method(
                    WorktreeActivities.prepare_worktree,
                    PrepareWorktreeInput(number=self.state.job.number, repo=self.state.job.repo),
                    **(GIT_STEP | route | ActivityConfig(summary=self._cutting())),
                )
            )
        except (ActivityError, asyncio.CancelledError) as error:
            if _cancelled(error):
                await discard_cancelled_worktree(self.state.job)
                return build_report(
                    self.state.job, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED_BEFORE_AGENT
                )
            assert isinstance(error, ActivityError)
            return build_report(self.state.job, JobOutcome.REFUSED, reason=reason_of(error))
        self.state.status.branch, self.state.status.worktree = worktree.branch, worktree.path
        try:
            refused = await set_up_worktree(self.state.job, worktree, self._on_host)
            if not refused:
                self._set_phase(JobPhase.WORKING)
                await self._narrate(Narration.WORKING, branch=worktree.branch)
        except (ActivityError, asyncio.CancelledError) as error:
            if not _cancel_reported(error):
                raise
            return await self._left_behind(
                worktree, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED_BEFORE_AGENT
            )
        if refused:
            return await self._left_behind(worktree, JobOutcome.FAILED, refused)

        try:
            agent = await self._run_agent_on_host(worktree)
            while agent is not None and agent.end == AgentEnd.SUSPENDED:
                agent = await self._suspended(worktree, agent)
        except (ActivityError, asyncio.CancelledError) as error:
            if _cancelled(error):
                return await self._left_behind(
                    worktree, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED
                )
            assert isinstance(error, ActivityError)
            return await self._left_behind(
                worktree,
                JobOutcome.FAILED,
                reason_of(error),
                kind=ReasonKind.ACTIVITY_FAILED,
                category=FailureKind.ACTIVITY,
            )
        if agent is None or agent.end == AgentEnd.TIMED_OUT:
            report = await self._left_behind(
                worktree, JobOutcome.TIMED_OUT, kind=ReasonKind.OUT_OF_TIME, agent=agent
            )
            clock = self.state.clock
            report.budget = self.state.job.budget
            report.budget_ceiling = clock.ceiling if clock.extended_by else None
            return report
        if agent.end == AgentEnd.NOT_STARTED:
            return await self._left_behind(
                worktree,
                JobOutcome.FAILED,
                agent.reason,
                agent=agent,
                category=FailureKind.NOT_STARTED,
            )
        if agent.end == AgentEnd.FAILED:
            # Only agents of this version end so: recorded histories never take this branch.
            return await self._left_behind(
                worktree, JobOutcome.FAILED, agent.reason, agent=agent, category=FailureKind.AGENT
            )
        if agent.exit_code != 0:
            code = agent.exit_code
            killed = code is not None and code < 0
            return await self._left_behind(
                worktree,
                JobOutcome.FAILED,
                kind=ReasonKind.KILLED if killed else ReasonKind.EXITED,
                agent=agent,
                category=FailureKind.SIGNAL if killed else FailureKind.EXIT,
            )

        check: CommandRun | None = None
        try:
            check = await check_worktree(self.state.job, worktree, agent, self._on_host)
            if check is None or not check.blocking():
                self._set_phase(JobPhase.INTEGRATING)
                await self._narrate(Narration.INTEGRATING)
        except (ActivityError, asyncio.CancelledError) as error:
            if not _cancel_reported(error):
                raise
            report = await self._left_behind(
                worktree, JobOutcome.CANCELLED, kind=ReasonKind.CANCELLED, agent=agent
            )
            report.check = check
            return report
        if check is not None and check.blocking():
            report = await self._left_behind(
                worktree, JobOutcome.FAILED, check_failure(check), agent=agent
            )
            report.check = check
            return report
        self.give_slot_back_early()
        result = await self._integrate(worktree)
        report = build_report(
            self.state.job,
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
            report.integration_wait = self.state.job.integration_wait
        report.check = check
        return report

    async def _run_agent_on_host(
        self, worktree: Worktree, suspended: AgentResult | None = None
    ) -> AgentResult | None:
        """Run the agent on the clone's host, starting it again whenever the host was gone;
        after a suspension (`suspended`), resume its session."""
        execution = 0

        async def run(route: Route) -> AgentResult | None:
            nonlocal execution
            execution += 1  # the agent is told which run of its step this is
            return await self._run_agent(worktree, route, execution, suspended)

        return await self._on_host(run)

    async def _suspended(self, worktree: Worktree, agent: AgentResult) -> AgentResult | None:
        """The agent deferred a held call nobody answered in its live window and ended: wait for
        the approval with no process and no slot (the work clock stands still), then take a
        slot again and resume the agent's session, whose hook gets the approval's answer."""
        ident = agent.deferred_approval
        _, action = self.state.held_actions.get(ident, ("", ident))
        self.state.status.suspended_for = action
        self.state.status.suspensions += 1
        self._set_phase(JobPhase.SUSPENDED)
        said = f"waiting for approval, suspended: {action}"
        workflow.set_current_details(phase_details(self.state.job, said))
        await self._narrate(Narration.SUSPENDED, held=action)
        await self.lend_slot()
        pending = self.state.approvals.get(ident)
        if pending is not None:
            # The suspended agent waits on it: an approval now is not one "approved late".
            self.state.hold_waiters[ident] = self.state.hold_waiters.get(ident, 0) + 1
            try:
                await workflow.wait_condition(pending.done)
            finally:
                self.state.hold_waiters[ident] -= 1
            self.state.resuming_approval = ident
        self.state.status.suspended_for = ""
        self._set_phase(JobPhase.QUEUED)
        await self.take_slot_again()
        self._set_phase(JobPhase.WORKING)
        await self._narrate(Narration.RESUMED, branch=worktree.branch)
        return await self._run_agent_on_host(worktree, agent)

    async def _waiting_for_host(self, host: str) -> None:
        """Say (in the status, in visibility and in the job's thread) which host it waits for."""
        if host == self.state.status.waiting_for_host:
            return
        gone = host or self.state.status.waiting_for_host
        self.state.status.waiting_for_host = host
        workflow.upsert_search_attributes(
            [
                WAITING_HOST_ATTRIBUTE.value_set(host)
                if host
                else WAITING_HOST_ATTRIBUTE.value_unset()
            ]
        )
        if host:
            await self._narrate(Narration.WAITING_FOR_HOST, host=host)
        else:
            await self._narrate(Narration.HOST_BACK, host=gone)

    async def _on_host(self, call: Callable[[Route], Awaitable[T]]) -> T:
        """Run a shelf step on the clone's host, waiting (and saying so) while it is gone."""
        return await on_host(
            call, self.state.job.host, self.state.job.host_wait, self._waiting_for_host
        )

    async def _run_agent(
        self,
        worktree: Worktree,
        route: Route,
        execution: int = 1,
        suspended: AgentResult | None = None,
    ) -> AgentResult | None:
        """Run the agent under the job's work clock; None when the budget ran out.

        The clock stands still while a hold waits for a person, so the budget counts only
        the agent's own working time; time the agent kept working beside a waiting hold is
        signalled by the hold channel (`agent_worked`) and counts. When the budget runs out
        the activity is cancelled, which kills the agent's process group.
        """
        handle = workflow.start_activity_method(
            AgentActivities.run_agent,
            RunAgentInput(
                number=self.state.job.number,
                repo=self.state.job.repo,
                task=self.state.job.task,
                agent_command=self.state.job.agent_command,
                worktree=worktree.path,
                output_chars=self.state.job.output_chars,
                hold_classes=self.state.job.hold_classes,
                hold_tools=self.state.job.hold_tools,
                execution=execution,
                spend_limit=self.state.job.spend_limit,
                may_defer=workflow.patched(SUSPENSION_PATCH),
                resume_session=suspended.session_id if suspended else "",
                spent_before=self.state.spent if suspended else None,
            ),
            **(
                agent_step(self.state.clock.limit, self.state.job.heartbeat_timeout)
                | route
                | ActivityConfig(summary=agent_summary(self.state.job.agent_command, execution))
            ),
        )
        state, clock = self.state, self.state.clock
        if suspended is None:  # a resumed session goes on with the work it did before
            clock.restart()
        out_of_time = False
        try:
            while not handle.done() and not out_of_time:
                left = clock.left(self.follows(Mode.LONG_RUNNING))
                if left <= timedelta(0):
                    out_of_time = True
                    handle.cancel()
                    break
                if state.waiting_holds:
                    await workflow.wait_condition(
                        lambda: handle.done() or not state.waiting_holds or bool(clock.beside_holds)
                    )
                    continue
                clock.start(workflow.now())
                try:
                    await workflow.wait_condition(
                        lambda: (
                            handle.done() or state.waiting_holds > 0 or bool(clock.beside_holds)
                        ),
                        timeout=max(left, timedelta(milliseconds=1)),
                        timeout_summary="the work budget runs out",
                    )
                except TimeoutError:
                    pass  # the clock is looked at again at the top: long-running may go on
                clock.stop(workflow.now())
        except asyncio.CancelledError:
            handle.cancel()
            await workflow.wait_condition(handle.done)
            self._note_spent(handle)
            raise
        try:
            agent = await handle
        except ActivityError as error:
            if out_of_time and _cancelled(error):
                return None
            raise
        self.state.spent = agent.usage
        return agent

    def _note_spent(self, handle: asyncio.Task[AgentResult]) -> None:
        """Keep what a cancelled job's agent spent: its run, stopped, still says so."""
        if not handle.cancelled() and handle.exception() is None:
            self.state.spent = handle.result().usage

    async def _integrate(self, worktree: Worktree) -> IntegrationResult:
        """Ask the repository's entity to integrate, and wait for its answer."""
        me = workflow.info().workflow_id
        request = IntegrationRequest(
            job_workflow_id=me,
            number=self.state.job.number,
            repo=self.state.job.repo,
            worktree=worktree,
            report_commits=self.state.job.report_commits,
            report_files=self.state.job.report_files,
            host=self.state.job.host,
        )
        try:
            entity = await heeding_cancel(queue_integration(request))
        except asyncio.CancelledError:
            if not workflow.patched(CANCEL_IN_FLIGHT_PATCH):
                raise  # as jobs started before the patch ended on replay
            # The request may have reached the entity: take it back there.
            return await self._withdraw(repo_handle(request.repo))
        try:
            await workflow.wait_condition(
                lambda: self.state.integration is not None,
                timeout=self.state.job.integration_wait,
                timeout_summary=f"waiting for {self.state.job.repo} to integrate",
            )
        except asyncio.CancelledError:
            return await self._withdraw(entity)
        except TimeoutError:
            return IntegrationResult(
                status=IntegrationStatus.FAILED,
                reason_kind=ReasonKind.INTEGRATION_WAITED,
                branch_kept=True,
            )
        assert self.state.integration is not None
        return self.state.integration

    async def _withdraw(self, entity: Entity) -> IntegrationResult:
        """The cancelled job's request out of the entity's queue: its answer, or withdrawn when
        none comes (an integration that already runs finishes and is answered)."""
        if not await withdraw_integration(entity, workflow.info().workflow_id):
            return _withdrawn()  # no entity runs: the request never reached one
        try:
            await workflow.wait_condition(
                lambda: self.state.integration is not None,
                timeout=WITHDRAW_WAIT,
                timeout_summary="withdrawing from the integration queue",
            )
        except TimeoutError:
            return _withdrawn()
        assert self.state.integration is not None
        return self.state.integration

    async def _left_behind(
        self,
        worktree: Worktree,
        outcome: JobOutcome,
        reason: str = "",
        *,
        kind: ReasonKind | None = None,
        agent: AgentResult | None = None,
        category: FailureKind = FailureKind.NONE,
    ) -> JobReport:
        """Release the worktree after a failure and report what was kept."""
        self._set_phase(JobPhase.CLEANING)
        left = await self._on_host(
            lambda route: workflow.execute_activity_method(
                WorktreeActivities.release_worktree,
                ReleaseWorktreeInput(
                    number=self.state.job.number,
                    repo=self.state.job.repo,
                    worktree=worktree,
                    report_commits=self.state.job.report_commits,
                    report_files=self.state.job.report_files,
                    output_chars=self.state.job.output_chars,
                ),
                **(GIT_STEP | route | ActivityConfig(summary=f"releasing {self._branch()}")),
            )
        )
        if agent is None and left.log_path:
            # The agent was stopped before it could report: its log tells what it said.
            agent = AgentResult(
                end=AgentEnd.TIMED_OUT,
                output=left.output,
                output_cut=left.output_cut,
                log_path=left.log_path,
            )
        kept = IntegrationResult(
            status=IntegrationStatus.FAILED,
            commits=left.commits,
            commits_omitted=left.commits_omitted,
            uncommitted=left.uncommitted,
            branch_kept=left.kept,
            git_state=left.git_state,
        )
        return build_report(
            self.state.job,
            outcome,
            reason=reason,
            kind=kind,
            worktree=worktree,
            agent=agent,
            integration=kept,
            category=category,
        )

    async def _narrate(
        self, said: Narration, *, branch: str = "", host: str = "", held: str = ""
    ) -> None:
        """Short narration for the job's chat thread (one progress message, edited in place);
        the surface words it."""
        if self.state.job.place is not None:
            place = self.state.job.place
            # While the agent works, the surface reads its lines from Temporal (not this history).
            working = self.state.status.phase == JobPhase.WORKING
            agent_of = workflow.info().workflow_id if working else ""
            progress = ThreadProgress(
                channel=place.channel,
                narration=said,
                branch=branch,
                host=host,
                held=held,
                agent_of=agent_of,
            )
            await heeding_cancel(send_to_outbox(place, progress))

    def _cutting(self) -> str:
        return f"cutting worker/{self.state.job.number} of {self.state.job.repo}"

    def _branch(self) -> str:
        return self.state.status.branch or f"worker/{self.state.job.number}"

    def _set_phase(self, phase: JobPhase, outcome: JobOutcome | None = None) -> None:
        self.state.status.phase = phase
        workflow.set_current_details(phase_details(self.state.job, phase.value))
        updates: list[SearchAttributeUpdate[str]] = [PHASE_ATTRIBUTE.value_set(phase.value)]
        if outcome is not None:
            updates.append(OUTCOME_ATTRIBUTE.value_set(outcome.value))
        workflow.upsert_search_attributes(updates)
