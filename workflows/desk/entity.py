"""The `Desk` entity: job numbers, `max_workers` slots per host, a FIFO queue of `max_queued`,
the day's spend against the host's daily limit."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ActivityError, FailureError, WorkflowAlreadyStartedError
from temporalio.workflow import ActivityConfig, ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.admission import AdmissionActivities
    from activities.desk import DeskActivities
    from desk.errors import (
        AdmissionCheckFailedError,
        HostError,
        JobExistsError,
        PolicyError,
        QueueFullError,
        desk_error,
    )
    from desk.failures import failure_of
    from desk.host_slots import (
        must_wait,
        next_admissible,
        repo_host,
        running_on,
        slots_of,
    )
    from desk.names import (
        DESK_STATE_QUERY,
        PHASE_ATTRIBUTE,
        REPO_ATTRIBUTE,
        REQUESTER_MEMO,
        SUMMARY_ATTRIBUTE,
        TASK_MEMO,
        job_workflow_id,
    )
    from desk.payloads.jobs import (
        Admission,
        AdmissionCheck,
        AdmitInput,
        DeskLimits,
        DeskState,
        HostRecord,
        JobAdmitted,
        JobInput,
        JobPhase,
        RepoPlacement,
        RunningJobsInput,
    )
    from desk.policy.job import judge_job
    from workflows.policies import (
        ADMISSION_CHECK_STEP,
        LOCAL_ADMISSION_CHECK_STEP,
        RUNNING_JOBS_STEP,
    )

from workflows.desk.admission import AwaitsAdmission, HearsJobEnds
from workflows.desk.daily_limit import KeepsDailyLimit
from workflows.desk.modes import KeepsModes
from workflows.desk.requests import RemembersAdmissions, admission_of
from workflows.job.coding_job import CodingJob
from workflows.job.reasons import reason_of
from workflows.summaries import job_details, job_summary

ADMISSION_CHECK = "admission-check"
"""Patch: a job is checked on the worker's host before it gets a number."""
CHECK_AS_ACTIVITY = "admission-check-activity"
"""Patch: that check is an activity, no longer a local activity (see `Desk._check`)."""
HOST_POLICY = "host-policy"
"""Patch: a job is judged by the desk's host policy, not by what its requester sent."""


@workflow.defn(name="Desk")
class Desk(HearsJobEnds, KeepsModes, RemembersAdmissions, KeepsDailyLimit):
    """One long-lived workflow, id `desk`, that admits every job of the desk.

    A job is started (as an abandoned child, so it outlives the desk's continue-as-new) the
    moment it is admitted: running when a slot is free, else queued and waiting for `admit`.
    Each job signals `job_ended` whatever ends it; a slot whose job no longer runs (a
    terminated workflow) is reclaimed by asking Temporal while others wait. Once its jobs have
    spent the day's limit, its queue waits for the next UTC day (`KeepsDailyLimit`).
    """

    @workflow.init
    def __init__(self, state: DeskState) -> None:
        self.state = state
        self.ended: list[int] = []
        self.starting: set[int] = set()

    @workflow.run
    async def run(self, state: DeskState) -> None:
        while not self._time_to_continue():
            if not await self.wait_for_the_day(partial(self._wakes, True)):
                wait = self._reclaim_wait()
                try:
                    await workflow.wait_condition(
                        partial(self._wakes, wait is not None),
                        timeout=wait,
                        timeout_summary="looking for jobs whose worker is gone",
                    )
                except TimeoutError:
                    await self._reclaim()
            await self._settle()
        # Drain before continuing: a job can end (job_ended) or ask (admit) while the last
        # admissions are signalled, and `ended` is not carried to the next run.
        while True:
            await workflow.wait_condition(lambda: workflow.all_handlers_finished())
            await self._settle()
            if not self.ended and workflow.all_handlers_finished():
                break
        workflow.continue_as_new(self.state)

    @workflow.update
    async def admit(self, request: AdmitInput) -> Admission:
        """Number a job and start it, running or queued; refused when the queue is full.

        Before a number is given the worker's host checks that it can run the job (the clone
        is on the shelf, the agent's program is installed) and that no push of the repository
        runs: every client gets these refusals, and none can skip them. A submission asked
        again (its request id seen before) gets its first admission and starts nothing.
        """
        if (repeat := self.repeat_admission(request)) is not None:
            return repeat
        if workflow.patched(ADMISSION_CHECK):
            await self._check(request.job)
            self._refuse_when_full(request)  # other jobs may have filled it meanwhile
        if workflow.patched(HOST_POLICY):
            request = request.model_copy(update={"job": self._judged(request)})
        self.state.last_number += 1
        number = self.state.last_number
        host = self._host_of(request.job.repo)
        day = self.day_reached()  # in `queue`: a `refuse` desk refused it above
        queued = must_wait(self.state, host) or day is not None
        if host:
            self.state.job_hosts[number] = host
        (self.state.queue if queued else self.state.running).append(number)
        self.starting.add(number)
        job = self.modes_of_new_job(number, request.job).model_copy(
            update={
                "number": number,
                "desk_id": workflow.info().workflow_id,
                "admitted": not queued,
                "host": host,
            }
        )
        if not queued:  # a queued job hears what is left of the day when it is let run
            job = self.within_the_day(job)
        try:
            await self._start(job, queued)
        except WorkflowAlreadyStartedError:
            self._forget(number)
            raise failure_of(
                JobExistsError(
                    f"A workflow {job_workflow_id(number)} exists already, so job {number} could "
                    "not start; the desk's numbering was reset. Try again: the next number is "
                    "free."
                )
            ) from None
        finally:
            self.starting.discard(number)
        self.remember_admission(request, number)
        return admission_of(self.state, number, host).model_copy(update={"day_limit": day})

    @admit.validator
    def _refuse_when_full(self, request: AdmitInput) -> None:
        if self.admitted_before(request):
            return  # answered with its first admission, whatever the desk holds now
        if self.state.policy is not None:  # none yet: refused once accepted (see `_judged`)
            self._judged(request)
        if len(self.state.hosts) > 1 and not self._host_of(request.job.repo):
            hosts = ", ".join(sorted(self.state.hosts))
            raise failure_of(
                HostError(
                    f"{request.job.repo} is on none of the hosts {hosts}: add it with "
                    f"`codedesk repo add {request.job.repo} --host NAME`."
                )
            )
        limits = self.state.limits
        host = self._host_of(request.job.repo)
        running, waiting = running_on(self.state, host), len(self.state.queue)
        slots = slots_of(self.state, host)
        if self.refuse_past_the_day(waiting, limits.max_queued) is not None:
            return  # it waits for the next UTC day, and the queue has room
        if must_wait(self.state, host) and waiting >= limits.max_queued:
            where = f" on host {host}" if host else ""
            raise failure_of(
                QueueFullError(
                    f"The desk is full: {running} jobs run (max_workers {slots}){where} and "
                    f"{waiting} wait (max_queued {limits.max_queued}). Try again when one "
                    "finishes, or cancel one with `codedesk cancel N`."
                )
            )

    def _judged(self, request: AdmitInput) -> JobInput:
        """The job under the desk's host policy; refused with none, or for a looser ask."""
        policy = self.state.policy
        if policy is None:
            raise failure_of(
                PolicyError(
                    "The desk has no host policy yet: no worker of this codedesk version has "
                    "started. Start (or restart) `codedesk worker`, then submit again; nothing "
                    "was started."
                )
            )
        try:
            return judge_job(request.job, request.ask, policy)
        except PolicyError as error:
            raise failure_of(error) from None

    async def _check(self, job: JobInput) -> None:
        """Ask a worker to check the job (its shelf, its agent's program, a running push).

        An activity, not a local one: an `admit` arrives in a speculative workflow task, which
        a local activity held open while it ran; with more submissions in flight than the
        server's limit of ten, the server dropped such tasks, the worker's answer found
        "Workflow task not found", and the desk replayed its whole history again and again
        while every submission waited (20 at once in `bench/queue_throughput.py`). Scheduling
        an activity ends the update's task at once.
        """
        check = AdmissionCheck(
            repo=job.repo, agent_command=job.agent_command, host=repo_host(self.state, job.repo)
        )
        try:
            if workflow.patched(CHECK_AS_ACTIVITY):
                verdict = await workflow.execute_activity_method(
                    AdmissionActivities.check_admission,
                    check,
                    **(
                        ADMISSION_CHECK_STEP
                        | ActivityConfig(summary=f"checking the host for a job on {job.repo}")
                    ),
                )
            else:
                verdict = await workflow.execute_local_activity_method(
                    AdmissionActivities.check_admission,
                    check,
                    **LOCAL_ADMISSION_CHECK_STEP,
                )
        except ActivityError as error:  # fail closed: a job nobody could check does not run
            raise failure_of(
                AdmissionCheckFailedError(
                    f"The desk could not check a job on {job.repo} ({reason_of(error)}); try again."
                )
            ) from None
        if verdict.refusal:  # the desk error the check raised, by its wire name
            raise failure_of(desk_error(verdict.kind, verdict.refusal))

    @workflow.update
    def configure(self, limits: DeskLimits) -> DeskState:
        """New limits and host policy from a starting worker (the newest policy wins);
        lowering max_workers never stops a running job."""
        if limits.policy is not None:
            self.state.policy = limits.policy.model_copy(update={"set_at": workflow.now()})
        self.state.limits = limits.model_copy(update={"policy": None})
        if limits.host:
            self.state.hosts[limits.host] = HostRecord(
                name=limits.host,
                shelf=limits.shelf,
                slots=limits.max_workers,
                seen_at=workflow.now(),
            )
        return self.state

    @configure.validator
    def _one_shelf_per_host(self, limits: DeskLimits) -> None:
        record = self.state.hosts.get(limits.host)
        if limits.others_polling and record is not None and record.shelf != limits.shelf:
            raise failure_of(
                HostError(
                    f"Host {limits.host} already has a worker with its shelf at {record.shelf}, "
                    f"not {limits.shelf}: give this worker another CODEDESK_HOST, or the same "
                    "CODEDESK_SHELF."
                )
            )

    @workflow.update
    def place_repo(self, placement: RepoPlacement) -> DeskState:
        """Record that a repository's clone is on `placement.host`; its jobs run there."""
        self.state.repo_hosts[placement.repo] = placement.host
        return self.state

    @place_repo.validator
    def _one_host_per_repo(self, placement: RepoPlacement) -> None:
        if placement.host not in self.state.hosts:
            raise failure_of(
                HostError(
                    f"Host {placement.host!r} is unknown: no worker has started there. Start "
                    f"`codedesk worker` with CODEDESK_HOST={placement.host} first."
                )
            )
        where = self.state.repo_hosts.get(placement.repo, placement.host)
        if where != placement.host:
            raise failure_of(
                HostError(
                    f"{placement.repo} is already on host {where}: a repository lives on one "
                    f"host. Use it there, or remove its clone from {where} first."
                )
            )

    @workflow.query(name=DESK_STATE_QUERY)
    def current(self) -> DeskState:
        return self.state

    async def _start(self, job: JobInput, queued: bool) -> None:
        phase = JobPhase.QUEUED if queued else JobPhase.STARTING
        await workflow.start_child_workflow(
            CodingJob.run,
            job,
            id=job_workflow_id(job.number),
            parent_close_policy=ParentClosePolicy.ABANDON,
            search_attributes=TypedSearchAttributes(
                [
                    SearchAttributePair(REPO_ATTRIBUTE, job.repo),
                    SearchAttributePair(PHASE_ATTRIBUTE, phase.value),
                    SearchAttributePair(SUMMARY_ATTRIBUTE, job_summary(job)),
                ]
            ),
            memo={REQUESTER_MEMO: job.requester, TASK_MEMO: job.task[:200]},
            static_summary=job_summary(job),
            static_details=job_details(job),
        )

    async def _settle(self) -> None:
        """Release the slots of ended jobs, then admit from the head of the queue."""
        while self.ended:
            self._forget(self.ended.pop(0))
        while (number := self._admissible()) is not None:
            self.state.queue.remove(number)
            self.state.running.append(number)
            job = workflow.get_external_workflow_handle(job_workflow_id(number))
            try:
                await job.signal(
                    AwaitsAdmission.admit, JobAdmitted(number=number, day_left=self.day_left())
                )
            except FailureError:  # the queued job is gone (terminated): its slot goes to the next
                self._forget(number)

    def _wakes(self, reclaim_timer: bool) -> bool:
        """Something to settle, or time to continue as new, or a reclaim timer to start.

        The reclaim timer is set when the wait begins: a job queued while none runs must wake
        the loop, or a slot held by a terminated job is never reclaimed.
        """
        return (
            bool(self.ended)
            or self._admissible() is not None
            or self._time_to_continue()
            or (not reclaim_timer and bool(self.state.queue))
        )

    def _host_of(self, repo: str) -> str:
        return repo_host(self.state, repo)

    def _admissible(self) -> int | None:
        """The next queued job to let run; none while the day's spend limit is reached."""
        if self.day_reached() is not None:
            return None
        return next_admissible(self.state, self.starting)

    def _forget(self, number: int) -> None:
        for numbers in (self.state.running, self.state.queue, self.state.suspended):
            if number in numbers:
                numbers.remove(number)
        self.state.job_hosts.pop(number, None)
        self.state.modes.forget_job(number)

    def _reclaim_wait(self) -> timedelta | None:
        """Check for lost slots only while someone waits for one."""
        return self.state.limits.reclaim_interval if self.state.queue else None

    async def _reclaim(self) -> None:
        asked = [number for number in self.state.running if number not in self.starting]
        try:
            alive = await workflow.execute_activity_method(
                DeskActivities.running_jobs,
                RunningJobsInput(numbers=asked),
                **(RUNNING_JOBS_STEP | ActivityConfig(summary="asking which jobs still run")),
            )
        except ActivityError:
            return  # try again at the next interval
        for number in set(asked) - set(alive.numbers):
            if number in self.state.running:
                self.state.running.remove(number)
                self.state.job_hosts.pop(number, None)
                self.state.reclaimed += 1
                workflow.logger.warning("Reclaimed the slot of job %s: it no longer runs.", number)

    def _time_to_continue(self) -> bool:
        info = workflow.info()
        limit = self.state.limits.history_limit
        too_long = limit > 0 and info.get_current_history_length() > limit
        return too_long or info.is_continue_as_new_suggested()
