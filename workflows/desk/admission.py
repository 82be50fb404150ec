"""The messages between the `Desk` and its jobs, in base classes of their own.

The desk starts jobs and signals them; jobs signal the desk when they end. Keeping each side's
signal in a mixin lets both workflow modules refer to it without importing each other.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.payloads.jobs import DeskState, JobAdmitted, JobEnded
    from desk.policy.daily import stricter

from workflows.job.state import JobState


class AwaitsAdmission:
    """Mixed into a job that may start queued: the desk's `admit` signal lets it run."""

    state: JobState

    @workflow.signal
    def admit(self, message: JobAdmitted) -> None:
        """A slot is free: the queued job may run now, within what is left of the desk's day."""
        if message.day_left is not None:
            limit = stricter(self.state.job.spend_limit, message.day_left)
            self.state.job = self.state.job.model_copy(update={"spend_limit": limit})
        self.state.admitted = True


class HearsJobEnds:
    """Mixed into the desk: every job it admitted says when it has ended, whatever ended it."""

    ended: list[int]
    state: DeskState

    @workflow.signal
    def job_ended(self, message: JobEnded) -> None:
        """Release the job's slot (or its place in the queue); count what it spent today."""
        self.ended.append(message.number)
        if message.cost is not None:
            self.state.day_spend.add(workflow.now(), message.cost)
