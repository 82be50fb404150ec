"""`codedesk hold`: the seam an agent's hook calls before a tool runs. It fails closed.

It reads one hold request as JSON on stdin, either codedesk's own form
(`{"tool": ..., "input": {...}}`) or Claude Code's PreToolUse hook input (`tool_name`,
`tool_input`), and asks the job named by `CODEDESK_JOB`. Whatever it cannot decide (a
malformed request, no job, no server, no answer in time) is a refusal with the reason.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from typing import Any

import jsonschema
from temporalio.client import (
    Client,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.service import RPCError, RPCStatusCode

from desk.approvals import HoldAnswer, HoldRequest
from desk.errors import HoldError
from desk.names import job_workflow_id
from workflows.coding_job import CodingJob

HOLD_REQUEST_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tool": {"type": "string", "minLength": 1},
        "tool_name": {"type": "string", "minLength": 1},
        "input": {"type": "object"},
        "tool_input": {"type": "object"},
        "parameters": {"type": ["object", "null"]},
    },
    "anyOf": [{"required": ["tool"]}, {"required": ["tool_name"]}],
}
RPC_SLACK = timedelta(seconds=15)


def read_request(text: str, wait: timedelta) -> HoldRequest:
    """Parse and validate a hold request; anything malformed is a HoldError."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise HoldError(f"The hold request is not JSON ({error}); the call may not run.") from None
    try:
        jsonschema.validate(document, HOLD_REQUEST_SCHEMA)
    except jsonschema.ValidationError as error:
        where = "/".join(str(part) for part in error.absolute_path) or "the request"
        problem = error.message
        if error.validator == "anyOf" and not error.absolute_path:
            # jsonschema's own words ("not valid under any of the given schemas") name no field.
            problem = "it names no tool: give `tool` (or Claude Code's `tool_name`)"
        raise HoldError(
            f"The hold request is malformed at {where}: {problem}; the call may not run."
        ) from None
    return HoldRequest(
        tool=document.get("tool") or document["tool_name"],
        input=document.get("input") or document.get("tool_input") or {},
        parameters=document.get("parameters"),
        wait_seconds=wait.total_seconds(),
    )


def job_from_environment() -> int:
    text = os.environ.get("CODEDESK_JOB", "")
    if not text.isdigit():
        raise HoldError(
            "CODEDESK_JOB is not set to a job number, so there is no job to ask; "
            "`codedesk hold` runs inside a codedesk job. The call may not run."
        )
    return int(text)


async def ask_job(client: Client, number: int, request: HoldRequest) -> HoldAnswer:
    """Ask job `number` by Update whether the call may run; every failure is a HoldError."""
    handle = client.get_workflow_handle_for(CodingJob.run, job_workflow_id(number))
    try:
        return await handle.execute_update(
            CodingJob.hold,
            request,
            rpc_timeout=timedelta(seconds=request.wait_seconds) + RPC_SLACK,
        )
    except WorkflowUpdateRPCTimeoutOrCancelledError:
        raise HoldError(
            f"Job {number} did not answer in time (is a worker running?); the call may not run."
        ) from None
    except WorkflowUpdateFailedError as error:
        raise HoldError(f"Job {number} refused the hold: {error.cause or error}.") from None
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND or "completed" in str(error).lower():
            raise HoldError(f"Job {number} is not running; the call may not run.") from None
        raise HoldError(
            f"Job {number} could not be asked ({error}); the call may not run."
        ) from None


def claude_output(answer: HoldAnswer) -> dict[str, Any]:
    """Claude Code's PreToolUse hook answer for `answer`."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow" if answer.may_run else "deny",
            "permissionDecisionReason": answer.reason or f"codedesk: {answer.verdict.value}",
        }
    }
