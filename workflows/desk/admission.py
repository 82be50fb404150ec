"""The messages between the `Desk` and its jobs, in base classes of their own.

The desk starts jobs and signals them; jobs signal the desk when they end. Keeping each side's
signal in a mixin lets both workflow modules refer to it without importing each other.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.payloads.jobs import DeskState, JobAdmitted, JobEnded, JobResumes, JobSuspends
    from desk.policy.daily import stricter

from workflows.job.state import JobState


class AwaitsAdmission:
    """Mixed into a job that may start queued: the desk's `admit` signal lets it run."""

    state: JobState

    @workflow.signal
    def admit(self, message: JobAdmitted) -> None:
        """A slot is free: the queued job may run now, within what is left of the desk's day."""
        if message.day_left is not None:
            # A suspended job let run again may spend what the day has left beyond its own
            # spend so far (which the day's total does not count until the job ends).
            spent = self.state.spent
            so_far = spent.cost if spent is not None and spent.cost is not None else 0
            limit = stricter(self.state.job.spend_limit, message.day_left + so_far)
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

    @workflow.signal
    def job_suspends(self, message: JobSuspends) -> None:
        """The job's agent is suspended for an approval: its slot is free until it resumes."""
        if message.number in self.state.running:
            self.state.running.remove(message.number)
            self.state.suspended.append(message.number)

    @workflow.signal
    def job_resumes(self, message: JobResumes) -> None:
        """The suspended job wants its slot back: it goes to the head of its host's queue (it
        was admitted before any job that waits)."""
        number = message.number
        if number in self.state.suspended:
            self.state.suspended.remove(number)
        if number not in self.state.running and number not in self.state.queue:
            self.state.queue.insert(0, number)
