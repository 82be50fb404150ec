"""Admitting a job at the desk: judged by the host's policy, checked on its host, started.

The job is started by its workflow type's name and told by its signals' names (desk/names.py),
so this folder imports nothing of the job's.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ActivityError
from temporalio.workflow import ActivityConfig, ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities.checks.admission_checks import AdmissionActivities
    from desk.decisions.host_slots import repo_host
    from desk.decisions.job_policy import judge_job
    from desk.errors import AdmissionCheckFailedError, PolicyError, desk_error
    from desk.failures import failure_of
    from desk.names import (
        ATTEMPT_OF_MEMO,
        ATTEMPTS_MEMO,
        CONTINUES_MEMO,
        JOB_WORKFLOW_TYPE,
        PHASE_ATTRIBUTE,
        REPO_ATTRIBUTE,
        REQUESTER_MEMO,
        SUMMARY_ATTRIBUTE,
        TASK_MEMO,
        job_workflow_id,
    )
    from desk.payloads.jobs import AdmissionCheck, AdmitInput, DeskState, JobInput, JobPhase
    from workflows.policies import ADMISSION_CHECK_STEP, LOCAL_ADMISSION_CHECK_STEP

from workflows import patches
from workflows.reasons import reason_of
from workflows.summaries import job_details, job_summary


def judged(state: DeskState, request: AdmitInput) -> JobInput:
    """The job under the desk's host policy; refused with none, or for a looser ask."""
    policy = state.policy
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


async def check_job(state: DeskState, job: JobInput) -> None:
    """Ask a worker to check the job (its shelf, its agent's program, a running push).

    An activity, not a local one: an `admit` arrives in a speculative workflow task, which
    a local activity held open while it ran; with more submissions in flight than the
    server's limit of ten, the server dropped such tasks, the worker's answer found
    "Workflow task not found", and the desk replayed its whole history again and again
    while every submission waited (20 at once in `bench/queue_throughput.py`). Scheduling
    an activity ends the update's task at once.
    """
    commands = dict.fromkeys(attempt.agent_command for attempt in job.attempts)
    for command in commands or [job.agent_command]:
        await _check_on_host(
            AdmissionCheck(
                repo=job.repo,
                agent_command=command,
                host=repo_host(state, job.repo),
                continues=job.continues.number if job.continues is not None else 0,
                starter=job.starter,
                owners=list(state.policy.owners) if state.policy is not None else [],
            ),
        )


async def _check_on_host(check: AdmissionCheck) -> None:
    """One check of the job (for each agent command of its attempts)."""
    try:
        if workflow.patched(patches.ADMISSION_CHECK_ACTIVITY):
            verdict = await workflow.execute_activity_method(
                AdmissionActivities.check_admission,
                check,
                **(
                    ADMISSION_CHECK_STEP
                    | ActivityConfig(summary=f"checking the host for a job on {check.repo}")
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
                f"The desk could not check a job on {check.repo} ({reason_of(error)}); try again."
            )
        ) from None
    if verdict.refusal:  # the desk error the check raised, by its wire name
        raise failure_of(desk_error(verdict.kind, verdict.refusal))


async def start_job(job: JobInput, queued: bool) -> None:
    """Start the admitted job as an abandoned child, so it outlives the desk's continue-as-new:
    running, or queued until the desk's `admit`."""
    phase = JobPhase.QUEUED if queued else JobPhase.STARTING
    await workflow.start_child_workflow(
        JOB_WORKFLOW_TYPE,
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
        memo=job_memo(job),
        static_summary=job_summary(job),
        static_details=job_details(job),
    )


def job_memo(job: JobInput) -> dict[str, object]:
    """What `codedesk jobs` reads of a job without asking it: who asked, the task, and the
    finished job it continues (only a continuation has that key)."""
    memo: dict[str, object] = {REQUESTER_MEMO: job.requester, TASK_MEMO: job.task[:200]}
    if job.continues is not None:
        memo[CONTINUES_MEMO] = job.continues.number
    if job.attempt_of:
        memo[ATTEMPT_OF_MEMO] = job.attempt_of
    if job.attempts:
        memo[ATTEMPTS_MEMO] = [attempt.number for attempt in job.attempts]
    return memo
