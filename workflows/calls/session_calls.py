"""Keeping a finished job's agent session: the job starts its `SessionKeep` by name only (it does
not build that workflow's module in its sandbox)."""

from __future__ import annotations

from datetime import datetime

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from desk.names import SESSION_KEEP_WORKFLOW_TYPE, session_keep_workflow_id
    from desk.payloads.conversation.session_payloads import SessionKeepInput
    from desk.payloads.jobs import JobInput

from workflows.calls.children import start_entity


async def keep_session(job: JobInput) -> datetime | None:
    """Start the `SessionKeep` that removes the job's agent session after the host's
    `session_keep`; when it does (None: it could not be started, and the session stays)."""
    until = workflow.now() + job.session_keep
    keep = SessionKeepInput(number=job.number, until=until, host=job.host, host_wait=job.host_wait)
    try:
        await start_entity(
            SESSION_KEEP_WORKFLOW_TYPE, keep, id=session_keep_workflow_id(job.number)
        )
    except FailureError as error:
        workflow.logger.warning("Could not keep job %s's session: %s", job.number, error)
        return None
    return until
