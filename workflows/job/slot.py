"""A job's slot at its desk: given back once, as soon as the job no longer needs it.

The slot limits how many agents work on a host at once. Once a job's agent is done, the job
only waits for its repository's entity, which integrates one job at a time whatever the slots
say, so the job gives its slot back then and the next queued job starts while it integrates.
The `job_ended` signal goes out in the same workflow task as the integration request and is
acknowledged while the repository works, so the job's last workflow task has nothing left to
wait for: it completes in the task that hears the integration's answer (issue 13). The signal
carries what the job's agent spent, for the desk's daily total.
"""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from desk.payloads.base import Payload
    from desk.payloads.jobs import JobEnded, JobResumes, JobSuspends
    from desk.usage.tally import USD

from workflows.desk.admission import HearsJobEnds
from workflows.in_flight import heeding_cancel
from workflows.job.state import JobState

SLOT_BACK_BEFORE_INTEGRATION = "slot-back-before-integration"
"""Patch: a job gives its slot back when it asks to integrate, not when it ends."""


class HoldsDeskSlot:
    """Mixed into a job: tells its desk, exactly once, that its slot is free."""

    state: JobState

    def give_slot_back_early(self) -> None:
        """The agent is done: free the slot now; the signal is awaited when the job ends."""
        if self.state.slot_given_back is None and workflow.patched(SLOT_BACK_BEFORE_INTEGRATION):
            self.state.slot_given_back = asyncio.create_task(self._signal_job_ended())

    async def tell_desk(self) -> None:
        """Free this job's slot at its desk (if not done already), whatever ended the job."""
        if self.state.slot_given_back is None:
            self.state.slot_given_back = asyncio.create_task(self._signal_job_ended())
        await self.state.slot_given_back

    async def lend_slot(self) -> None:
        """The agent is suspended for an approval: the desk may give the slot to another job."""
        if self.state.job.desk_id and self.state.slot_given_back is None:
            suspends = JobSuspends(number=self._number)
            await heeding_cancel(self._signal_desk(HearsJobEnds.job_suspends, suspends))

    async def take_slot_again(self) -> None:
        """The suspended job wants a slot: it heads the desk's queue and waits for `admit`."""
        if not self.state.job.desk_id or self.state.slot_given_back is not None:
            return
        self.state.admitted = False
        resumes = JobResumes(number=self._number)
        if await heeding_cancel(self._signal_desk(HearsJobEnds.job_resumes, resumes)):
            await workflow.wait_condition(lambda: self.state.admitted)
        else:  # no desk to admit it: it goes on at once
            self.state.admitted = True

    @property
    def _number(self) -> int:
        return self.state.job.number

    async def _signal_desk(self, signal: Any, message: Payload) -> bool:
        """Signal the job's desk; False when it is gone (a new desk has no slot to lend)."""
        desk = workflow.get_external_workflow_handle(self.state.job.desk_id)
        try:
            await desk.signal(signal, message)
        except FailureError:
            workflow.logger.warning(
                "The desk %s is gone; job %s goes on.", self.state.job.desk_id, self._number
            )
            return False
        return True

    async def _signal_job_ended(self) -> None:
        if not self.state.job.desk_id:
            return
        spent = self.state.spent  # known by now: the slot goes back once the agent is done
        cost = spent.cost if spent is not None and spent.currency == USD else None
        # A desk that is gone leaks no slot: a new desk starts with none.
        await self._signal_desk(HearsJobEnds.job_ended, JobEnded(number=self._number, cost=cost))
