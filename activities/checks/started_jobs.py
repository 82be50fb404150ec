"""What a job was started with, read from its workflow's history: the desk's check of a
continuation and the client's both ask it of the finished job they continue."""

from __future__ import annotations

import json

from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from desk.errors import JobNotFoundError, MessageError
from desk.names import job_workflow_id
from desk.payloads.jobs import JobInput


async def started_as(client: Client, number: int) -> JobInput:
    """What job `number` was started with (its workflow's input, kept in its history)."""
    handle = client.get_workflow_handle(job_workflow_id(number))
    try:
        async for event in handle.fetch_history_events():
            payload = event.workflow_execution_started_event_attributes.input.payloads[0]
            return JobInput.model_validate(json.loads(payload.data))
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
        no_job = f"There is no job {number}: `codedesk jobs` lists the jobs."
        raise JobNotFoundError(no_job) from None
    raise MessageError(f"Job {number} has no history to continue from.")
