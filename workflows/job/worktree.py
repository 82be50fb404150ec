"""The job's worktree on the clone's host: cut, discarded after a cancelled cut, released after a
failure with what it kept."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.jobs.worktrees import WorktreeActivities
    from desk.payloads.jobs import (
        AgentEnd,
        AgentResult,
        CutWorktree,
        DiscardWorktreeInput,
        FailureKind,
        IntegrationResult,
        IntegrationStatus,
        JobOutcome,
        JobPhase,
        JobReport,
        PrepareWorktreeInput,
        ReasonKind,
        ReleaseWorktreeInput,
        Worktree,
    )
    from workflows.policies import git_step

from workflows import patches
from workflows.host.host_routes import host_route
from workflows.job.record.progress import on_the_clones_host, set_phase
from workflows.job.record.report import build_report
from workflows.job.record.state import JobState
from workflows.reasons import reason_of


async def cut_worktree(state: JobState) -> CutWorktree:
    """Cut the job's branch and worktree from the clone's HEAD (a continuation's from the
    finished job's kept branch), on the clone's host."""
    job = state.job
    name = f"{job.attempt_of}-{job.attempt_label}" if job.attempt_of else ""
    cutting = f"cutting worker/{name or job.number} of {job.repo}"
    # A continuation of a job that kept its branch goes on from that branch's work.
    start = state.continuing.branch if state.continuing is not None else ""
    return await on_the_clones_host(
        state,
        lambda route: workflow.execute_activity_method(
            WorktreeActivities.prepare_worktree,
            PrepareWorktreeInput(
                number=job.number, repo=job.repo, start_from=start, branch_name=name
            ),
            **(git_step(job.git_heartbeat_timeout) | route | ActivityConfig(summary=cutting)),
        ),
    )


async def discard_cancelled_worktree(state: JobState) -> None:
    """After a cancel during `prepare_worktree`, whose thread may still be cutting: remove
    the worktree and branch it cut, or stop it from cutting them.

    Once, on the clone's host: a host that has no worker now has no cut in progress either.
    A failure is logged; the job is cancelled all the same.
    """
    workflow.deprecate_patch(patches.DISCARD_CANCELLED_WORKTREE)
    job = state.job
    try:
        await workflow.execute_activity_method(
            WorktreeActivities.discard_worktree,
            DiscardWorktreeInput(number=job.number, repo=job.repo),
            **(
                git_step(job.git_heartbeat_timeout)
                | host_route(job.host, job.host_wait)
                | ActivityConfig(summary=f"discarding job {job.number}'s worktree")
            ),
        )
    except ActivityError as error:
        workflow.logger.warning(
            "Job %s: its worktree could not be discarded: %s", job.number, reason_of(error)
        )


async def left_behind(
    state: JobState,
    worktree: Worktree,
    outcome: JobOutcome,
    reason: str = "",
    *,
    kind: ReasonKind | None = None,
    agent: AgentResult | None = None,
    category: FailureKind = FailureKind.NONE,
) -> JobReport:
    """Release the worktree after a failure and report what was kept."""
    set_phase(state, JobPhase.CLEANING)
    job = state.job
    branch = state.status.branch or f"worker/{job.number}"
    left = await on_the_clones_host(
        state,
        lambda route: workflow.execute_activity_method(
            WorktreeActivities.release_worktree,
            ReleaseWorktreeInput.of(job, worktree),
            **(
                git_step(job.git_heartbeat_timeout)
                | route
                | ActivityConfig(summary=f"releasing {branch}")
            ),
        ),
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
        job,
        outcome,
        reason=reason,
        kind=kind,
        worktree=worktree,
        agent=agent,
        integration=kept,
        category=category,
    )
