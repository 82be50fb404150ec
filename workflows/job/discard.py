"""A job cancelled while its worktree was being cut removes whatever the cut left behind."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.git.worktrees import WorktreeActivities
    from desk.payloads.jobs import DiscardWorktreeInput, JobInput
    from workflows.policies import GIT_STEP

from workflows.hosts import host_route
from workflows.job.reasons import reason_of

DISCARD_PATCH = "discard-cancelled-worktree"
"""Jobs recorded before it ended at once when cancelled during `prepare_worktree`."""


async def discard_cancelled_worktree(job: JobInput) -> None:
    """After a cancel during `prepare_worktree`, whose thread may still be cutting: remove
    the worktree and branch it cut, or stop it from cutting them.

    Once, on the clone's host: a host that has no worker now has no cut in progress either.
    A failure is logged; the job is cancelled all the same.
    """
    if not workflow.patched(DISCARD_PATCH):
        return
    try:
        await workflow.execute_activity_method(
            WorktreeActivities.discard_worktree,
            DiscardWorktreeInput(number=job.number, repo=job.repo),
            **(
                GIT_STEP
                | host_route(job.host, job.host_wait)
                | ActivityConfig(summary=f"discarding job {job.number}'s worktree")
            ),
        )
    except ActivityError as error:
        workflow.logger.warning(
            "Job %s: its worktree could not be discarded: %s", job.number, reason_of(error)
        )
