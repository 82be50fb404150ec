"""`SessionKeep`: a finished job's agent session, kept for the host's CODEDESK_SESSION_KEEP so
that a continuation (`codedesk say` to the job) resumes it, then removed from the clone's host.

The wait is a durable timer: it outlives any worker and a restarted server, and the removal runs
once its time is up, on the host whose shelf holds the job's folder (waiting for that host while
it has no worker). Its result says when the session went; `show` reads it.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.jobs.worktrees import WorktreeActivities
    from desk.names import SESSION_KEEP_WORKFLOW_TYPE
    from desk.payloads.conversation.session_payloads import SessionKeepInput, SessionRemoved
    from workflows.policies import GIT_STEP

from workflows.host.host_routes import on_host


@workflow.defn(name=SESSION_KEEP_WORKFLOW_TYPE)
class SessionKeep:
    """Id `session-<n>`: job n's agent session, kept until its time is up, then removed."""

    @workflow.run
    async def run(self, keep: SessionKeepInput) -> SessionRemoved:
        left = keep.until - workflow.now()
        if left > timedelta(0):
            await workflow.sleep(left, summary=f"job {keep.number}'s session kept")
        removing = f"removing job {keep.number}'s agent session"
        await on_host(
            lambda route: workflow.execute_activity_method(
                WorktreeActivities.forget_session,
                keep,
                **(GIT_STEP | route | ActivityConfig(summary=removing)),
            ),
            keep.host,
            keep.host_wait,
        )
        return SessionRemoved(number=keep.number, removed_at=workflow.now())
