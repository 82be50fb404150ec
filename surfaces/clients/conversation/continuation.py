"""A message to a finished job continues it (`codedesk say N TEXT` after N's report): what the new
job is given, read from job N itself.

The new job runs job N's agent command on job N's repository, in job N's place (its Discord
thread), and is admitted by the desk like any task (the host's budget, spend limit and queue);
only job N's requester and the host's owners may continue it, as only they may talk to it. Its
agent resumes job N's session with the message as its prompt while the session is kept
(`SessionKeep`), and starts a new one with job N's task and the message once it is gone.
"""

from __future__ import annotations

from desk.decisions.message_rules import sender_refusal, text_refusal
from desk.errors import MessageError
from desk.payloads.conversation.session_payloads import Continuation
from desk.payloads.jobs import JobInput, JobReport
from desk.payloads.message_payloads import SayInput


def refusal(job: JobInput, said: SayInput) -> MessageError | None:
    """Why `said` may not continue `job` (None: it may), as the job itself would refuse it."""
    stranger = sender_refusal(job, said.by, f"continue job {job.number}")
    return stranger or text_refusal(said.text, job.message_chars)


def continuation_of(job: JobInput, report: JobReport) -> Continuation:
    """What a continuation of the finished `job` resumes: its session while it is kept, its
    kept branch, and the task it (or the job it continued) was given. `report` is the job's
    report as `DeskClient.status` reads it: with its `SessionKeep`'s removal, when it has
    removed the session."""
    kept = report.session_kept_until is not None and report.session_removed_at is None
    return Continuation(
        number=job.number,
        task=job.continues.task if job.continues is not None else job.task,
        session_id=report.session_id if kept else "",
        branch=report.branch if report.branch_kept else "",
    )
