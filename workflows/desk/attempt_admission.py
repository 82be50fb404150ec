"""Admitting a job of several attempts (issue 48): the job and each attempt numbered at once.

The job itself runs no agent and takes no slot: it waits for its attempts' news and the pick.
Each attempt is an ordinary job of its own number, running or queued as the host's slots say,
told the job it belongs to (`attempt_of`) and its label. It shares the job's thread, where its
held calls' cards go, but its progress and report are the job's to tell, and the job's alone
reach the result hooks. The job is started first, so an attempt's news always finds it.
"""

from __future__ import annotations

from collections.abc import Callable

from temporalio import workflow
from temporalio.exceptions import WorkflowAlreadyStartedError

with workflow.unsafe.imports_passed_through():
    from desk.decisions.host_slots import must_wait, queued_on, running_on, slots_of
    from desk.errors import JobExistsError, QueueFullError
    from desk.failures import failure_of
    from desk.names import job_workflow_id
    from desk.payloads.jobs import AdmitInput, DeskState, JobInput

from workflows.desk.daily_limit import day_reached, within_the_day
from workflows.desk.desk_admission import start_job
from workflows.desk.desk_modes import modes_of_new_job


def attempts_refusal(state: DeskState, host: str, job: JobInput) -> None:
    """Refuse a job whose attempts would not all fit: the free slots and the queue's room."""
    free = max(0, slots_of(state, host) - running_on(state, host))
    if queued_on(state, host):
        free = 0
    waiting = len(state.queue)
    room = state.limits.max_queued - waiting
    if len(job.attempts) - free > room:
        where = f" on host {host}" if host else ""
        raise failure_of(
            QueueFullError(
                f"The desk cannot take {len(job.attempts)} attempts: {free} slots are free"
                f"{where} and the queue has room for {max(0, room)} more (max_queued "
                f"{state.limits.max_queued}). Ask for fewer attempts, or try again when jobs "
                "finish."
            )
        )


async def start_attempts(
    state: DeskState,
    request: AdmitInput,
    host: str,
    starting: set[int],
    forget: Callable[[int], None],
) -> int:
    """Number the job and its attempts, start the job, then each attempt (running or queued);
    return the job's number."""
    number = state.last_number + 1
    state.last_number += 1 + len(request.job.attempts)
    specs = [
        spec.model_copy(update={"number": number + 1 + index})
        for index, spec in enumerate(request.job.attempts)
    ]
    base = request.job.model_copy(
        update={"attempts": specs, "desk_id": workflow.info().workflow_id, "host": host}
    )
    attempts: list[tuple[JobInput, bool]] = []
    for spec in specs:
        queued = must_wait(state, host) or day_reached(state) is not None
        if host:
            state.job_hosts[spec.number] = host
        (state.queue if queued else state.running).append(spec.number)
        starting.add(spec.number)
        attempt = modes_of_new_job(state, spec.number, base).model_copy(
            update={
                "number": spec.number,
                "agent_command": spec.agent_command,
                "attempts": [],
                "pick_first_passing": False,
                "attempt_of": number,
                "attempt_label": spec.label,
                "result_hooks": None,
                "admitted": not queued,
            }
        )
        attempts.append((attempt if queued else within_the_day(state, attempt), queued))
    job = modes_of_new_job(state, number, base).model_copy(
        update={"number": number, "admitted": True}
    )
    try:
        await start_job(job, False)
        for attempt, queued in attempts:
            await start_job(attempt, queued)
    except WorkflowAlreadyStartedError:
        for spec in specs:
            forget(spec.number)
        raise failure_of(
            JobExistsError(
                f"A workflow {job_workflow_id(number)} (or one of its attempts') exists already, "
                "so the job could not start; the desk's numbering was reset. Try again."
            )
        ) from None
    finally:
        starting.difference_update(spec.number for spec in specs)
    return number
