"""Whether a finished job's agent session is still kept: its `SessionKeep`'s result says when it
was removed (read for `show`, and before a continuation resumes it)."""

from __future__ import annotations

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from desk.names import session_keep_workflow_id
from desk.payloads.conversation.session_payloads import SessionRemoved
from desk.payloads.jobs import JobReport


async def with_session_state(client: Client, report: JobReport) -> JobReport:
    """`report` with `session_removed_at` from its `SessionKeep`, once that has removed it."""
    if report.session_kept_until is None:
        return report
    handle = client.get_workflow_handle(
        session_keep_workflow_id(report.number), result_type=SessionRemoved
    )
    try:
        described = await handle.describe()
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
        return report
    if described.status != WorkflowExecutionStatus.COMPLETED:
        return report
    removed = await handle.result()
    return report.model_copy(update={"session_removed_at": removed.removed_at})
