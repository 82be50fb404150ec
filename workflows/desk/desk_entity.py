"""The `Desk` entity: job numbers, `max_workers` slots per host, a FIFO queue of `max_queued`,
the day's spend against the host's daily limit."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from temporalio import workflow
from temporalio.exceptions import ActivityError, FailureError, WorkflowAlreadyStartedError
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.desk import DeskActivities
    from desk.decisions.host_slots import (
        must_wait,
        next_admissible,
        repo_host,
        running_on,
        slots_of,
    )
    from desk.errors import HostError, JobExistsError, QueueFullError
    from desk.failures import failure_of
    from desk.names import (
        DESK_JOB_ENDED_SIGNAL,
        DESK_JOB_RESUMES_SIGNAL,
        DESK_JOB_SUSPENDS_SIGNAL,
        DESK_STATE_QUERY,
        DESK_WORKFLOW_TYPE,
        JOB_ADMIT_SIGNAL,
        job_workflow_id,
    )
    from desk.payloads.jobs import (
        Admission,
        AdmitInput,
        DeskLimits,
        DeskState,
        HostRecord,
        JobAdmitted,
        JobEnded,
        JobResumes,
        JobSuspends,
        RepoPlacement,
        RunningJobsInput,
    )
    from desk.policy.modes import ModeRequest, ModeSwitched
    from workflows.policies import RUNNING_JOBS_STEP

from workflows import patches
from workflows.desk.attempt_admission import attempts_refusal, start_attempts
from workflows.desk.daily_limit import (
    day_left,
    day_reached,
    refuse_past_the_day,
    wait_for_the_day,
    within_the_day,
)
from workflows.desk.desk_admission import check_job, judged, start_job
from workflows.desk.desk_modes import apply_switch, modes_of_new_job, refuse_malformed
from workflows.desk.requests import (
    admission_of,
    admitted_before,
    remember_admission,
    repeat_admission,
)


@workflow.defn(name=DESK_WORKFLOW_TYPE)
class Desk:
    """One long-lived workflow, id `desk`, that admits every job of the desk.

    A job is started (as an abandoned child, so it outlives the desk's continue-as-new) the
    moment it is admitted: running when a slot is free, else queued and waiting for `admit`.
    Each job signals `job_ended` whatever ends it; a slot whose job no longer runs (a
    terminated workflow) is reclaimed by asking Temporal while others wait. Once its jobs have
    spent the day's limit, its queue waits for the next UTC day (`daily_limit`).
    """

    @workflow.init
    def __init__(self, state: DeskState) -> None:
        self.state = state
        self.ended: list[int] = []
        self.starting: set[int] = set()

    @workflow.run
    async def run(self, state: DeskState) -> None:
        while not self._time_to_continue():
            if not await wait_for_the_day(self.state, partial(self._wakes, True)):
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
        if (repeat := repeat_admission(self.state, request)) is not None:
            return repeat
        if workflow.patched(patches.ADMISSION_CHECK):
            await check_job(self.state, request.job)
            self._refuse_when_full(request)  # other jobs may have filled it meanwhile
        if workflow.patched(patches.HOST_POLICY):
            request = request.model_copy(update={"job": judged(self.state, request)})
        host = self._host_of(request.job.repo)
        if request.job.attempts:
            number = await start_attempts(self.state, request, host, self.starting, self._forget)
            remember_admission(self.state, request, number)
            return admission_of(self.state, number, host)
        self.state.last_number += 1
        number = self.state.last_number
        day = day_reached(self.state)  # in `queue`: a `refuse` desk refused it above
        queued = must_wait(self.state, host) or day is not None
        if host:
            self.state.job_hosts[number] = host
        (self.state.queue if queued else self.state.running).append(number)
        self.starting.add(number)
        job = modes_of_new_job(self.state, number, request.job).model_copy(
            update={
                "number": number,
                "desk_id": workflow.info().workflow_id,
                "admitted": not queued,
                "host": host,
            }
        )
        if not queued:  # a queued job hears what is left of the day when it is let run
            job = within_the_day(self.state, job)
        try:
            await start_job(job, queued)
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
        remember_admission(self.state, request, number)
        return admission_of(self.state, number, host).model_copy(update={"day_limit": day})

    @admit.validator
    def _refuse_when_full(self, request: AdmitInput) -> None:
        if admitted_before(self.state, request):
            return  # answered with its first admission, whatever the desk holds now
        if self.state.policy is not None:  # none yet: refused once accepted (see `judged`)
            judged(self.state, request)
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
        if refuse_past_the_day(self.state, waiting, limits.max_queued) is not None:
            return  # it waits for the next UTC day, and the queue has room
        if request.job.attempts:
            attempts_refusal(self.state, host, request.job)
        elif must_wait(self.state, host) and waiting >= limits.max_queued:
            where = f" on host {host}" if host else ""
            raise failure_of(
                QueueFullError(
                    f"The desk is full: {running} jobs run (max_workers {slots}){where} and "
                    f"{waiting} wait (max_queued {limits.max_queued}). Try again when one "
                    "finishes, or cancel one with `codedesk cancel N`."
                )
            )

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

    @workflow.update
    async def switch_mode(self, request: ModeRequest) -> ModeSwitched:
        """An owner switches a mode on a scope; the running jobs of that scope are told."""
        return await apply_switch(self.state, request)

    @switch_mode.validator
    def _well_formed(self, request: ModeRequest) -> None:
        refuse_malformed(self.state, request)

    @workflow.signal(name=DESK_JOB_ENDED_SIGNAL)
    def job_ended(self, message: JobEnded) -> None:
        """A job ended, whatever ended it: release its slot (or its place in the queue) and
        count what it spent today."""
        self.ended.append(message.number)
        if message.cost is not None:
            self.state.day_spend.add(workflow.now(), message.cost)

    @workflow.signal(name=DESK_JOB_SUSPENDS_SIGNAL)
    def job_suspends(self, message: JobSuspends) -> None:
        """The job's agent is suspended for an approval: its slot is free until it resumes."""
        if message.number in self.state.running:
            self.state.running.remove(message.number)
            self.state.suspended.append(message.number)

    @workflow.signal(name=DESK_JOB_RESUMES_SIGNAL)
    def job_resumes(self, message: JobResumes) -> None:
        """The suspended job wants its slot back: it goes to the head of its host's queue (it
        was admitted before any job that waits)."""
        number = message.number
        if number in self.state.suspended:
            self.state.suspended.remove(number)
        if number not in self.state.running and number not in self.state.queue:
            self.state.queue.insert(0, number)

    async def _settle(self) -> None:
        """Release the slots of ended jobs, then admit from the head of the queue."""
        while self.ended:
            self._forget(self.ended.pop(0))
        while (number := self._admissible()) is not None:
            self.state.queue.remove(number)
            self.state.running.append(number)
            job = workflow.get_external_workflow_handle(job_workflow_id(number))
            try:
                admit = JobAdmitted(number=number, day_left=day_left(self.state))
                await job.signal(JOB_ADMIT_SIGNAL, admit)
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
        if day_reached(self.state) is not None:
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
