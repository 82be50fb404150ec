"""A job's slot at its desk: admitted into it, lent while suspended, given back once.

The slot limits how many agents work on a host at once. A job started queued waits for the
desk's `admit`. Once a job's agent is done, the job only waits for its repository's entity,
which integrates one job at a time whatever the slots say, so the job gives its slot back then
and the next queued job starts while it integrates. The `job_ended` signal goes out in the same
workflow task as the integration request and is acknowledged while the repository works, so the
job's last workflow task has nothing left to wait for: it completes in the task that hears the
integration's answer (issue 13). The signal carries what the job's agent spent, for the desk's
daily total. Every message to the desk goes by its name (desk/names.py).
"""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from desk.names import DESK_JOB_ENDED_SIGNAL, DESK_JOB_RESUMES_SIGNAL, DESK_JOB_SUSPENDS_SIGNAL
    from desk.payloads.jobs import JobAdmitted, JobEnded, JobResumes, JobSuspends
    from desk.policy.daily import stricter
    from desk.records.base import Payload
    from desk.usage.tally import USD

from workflows import patches
from workflows.in_flight import heeding_cancel
from workflows.job.record.state import JobState


def admitted(state: JobState, message: JobAdmitted) -> None:
    """A slot is free: the queued job may run now, within what is left of the desk's day."""
    if message.day_left is not None:
        # A suspended job let run again may spend what the day has left beyond its own
        # spend so far (which the day's total does not count until the job ends).
        spent = state.spent
        so_far = spent.cost if spent is not None and spent.cost is not None else 0
        limit = stricter(state.job.spend_limit, message.day_left + so_far)
        state.job = state.job.model_copy(update={"spend_limit": limit})
    state.admitted = True


def give_slot_back_early(state: JobState) -> None:
    """The agent is done: free the slot now; the signal is awaited when the job ends."""
    if state.slot_given_back is None and workflow.patched(patches.SLOT_BACK_BEFORE_INTEGRATION):
        state.slot_given_back = asyncio.create_task(_signal_job_ended(state))


async def tell_desk(state: JobState) -> None:
    """Free this job's slot at its desk (if not done already), whatever ended the job."""
    if state.slot_given_back is None:
        state.slot_given_back = asyncio.create_task(_signal_job_ended(state))
    await state.slot_given_back


async def lend_slot(state: JobState) -> None:
    """The agent is suspended for an approval: the desk may give the slot to another job."""
    if state.job.desk_id and state.slot_given_back is None:
        suspends = JobSuspends(number=state.job.number)
        await heeding_cancel(_signal_desk(state, DESK_JOB_SUSPENDS_SIGNAL, suspends))


async def take_slot_again(state: JobState) -> None:
    """The suspended job wants a slot: it heads the desk's queue and waits for `admit`."""
    if not state.job.desk_id or state.slot_given_back is not None:
        return
    state.admitted = False
    resumes = JobResumes(number=state.job.number)
    if await heeding_cancel(_signal_desk(state, DESK_JOB_RESUMES_SIGNAL, resumes)):
        await workflow.wait_condition(lambda: state.admitted)
    else:  # no desk to admit it: it goes on at once
        state.admitted = True


async def _signal_desk(state: JobState, signal: str, message: Payload) -> bool:
    """Signal the job's desk; False when it is gone (a new desk has no slot to lend)."""
    desk = workflow.get_external_workflow_handle(state.job.desk_id)
    try:
        await desk.signal(signal, message)
    except FailureError:
        workflow.logger.warning(
            "The desk %s is gone; job %s goes on.", state.job.desk_id, state.job.number
        )
        return False
    return True


async def _signal_job_ended(state: JobState) -> None:
    if not state.job.desk_id:
        return
    spent = state.spent  # known by now: the slot goes back once the agent is done
    cost = spent.cost if spent is not None and spent.currency == USD else None
    # A desk that is gone leaks no slot: a new desk starts with none.
    ended = JobEnded(number=state.job.number, cost=cost)
    await _signal_desk(state, DESK_JOB_ENDED_SIGNAL, ended)
