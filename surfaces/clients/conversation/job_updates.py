"""One Update to a running job from a client (`say`, `finish`, a review's answer), as the job
answers it.

The job refuses in the Update's validator, so a refusal leaves nothing in its history and comes
back as the desk error it is. A job that has ended refuses nothing (the server says it has
completed): the caller is told how it ended and says what that means for its Update.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from temporalio.client import (
    Client,
    WorkflowExecutionStatus,
    WorkflowHandle,
    WorkflowUpdateFailedError,
)
from temporalio.service import RPCError, RPCStatusCode

from desk.errors import DeskError, JobNotFoundError
from desk.failures import error_of
from desk.names import job_workflow_id
from desk.payloads.jobs import JobReport
from surfaces.clients.listings.worker_check import require_worker
from workflows.job.coding_job import CodingJob
from workflows.reasons import reason_of

R = TypeVar("R")
JobHandle = WorkflowHandle[CodingJob, JobReport]


@dataclass(frozen=True)
class JobEnded:
    """The job has ended, so it took no Update: `status` says how (`completed`, `terminated`)."""

    status: str


async def update_job(
    client: Client,
    task_queue: str,
    number: int,
    send: Callable[[JobHandle], Awaitable[R]],
    not_taken: str,
) -> R | JobEnded:
    """`send` job `number` its Update; the job's answer, or how it ended. Raises the job's
    refusal as its desk error, `JobNotFoundError` when there is no such job, and a `DeskError`
    saying the job `not_taken` ("did not take the message") when the Update failed otherwise."""
    await require_worker(client, task_queue)
    handle = client.get_workflow_handle_for(CodingJob.run, job_workflow_id(number))
    try:
        return await send(handle)
    except WorkflowUpdateFailedError as error:
        refused = error_of(error)
        if refused is not None:
            raise refused from None
        raise DeskError(f"Job {number} {not_taken}: {reason_of(error.cause)}") from None
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
    try:
        described = await handle.describe()
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
        raise JobNotFoundError(
            f"There is no job {number}: `codedesk jobs` lists the jobs."
        ) from None
    return JobEnded((described.status or WorkflowExecutionStatus.COMPLETED).name.lower())
