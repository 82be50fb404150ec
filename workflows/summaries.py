"""What the Temporal UI shows of each workflow, activity and timer: its user metadata.

Temporal keeps a workflow's static summary (one line, in the list) and details (markdown, on its
page), an activity's and a timer's summary (its timeline) and a workflow's current details. They
are metadata, not commands: adding them changes no replay. Everything here is scrubbed and cut,
since the UI shows it to anyone who can reach the frontend.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.payloads.jobs import JobInput
    from desk.scrub import scrub

SUMMARY_CHARS = 200
"""Temporal's UI shows one line; a longer summary is cut here, marked."""
DETAILS_CHARS = 4000


def job_summary(job: JobInput) -> str:
    """`Job 12 on acme/api: fix the login bug` (the task's first line)."""
    first = next((line for line in job.task.splitlines() if line.strip()), "")
    return _cut(scrub(f"Job {job.number} on {job.repo}: {first.strip()}"), SUMMARY_CHARS)


def job_details(job: JobInput) -> str:
    """The job's page in the UI: who asked, where, with which agent, and the whole task."""
    lines = [
        f"**Job {job.number}** on `{job.repo}`",
        f"asked by {job.requester or 'someone'}, agent `{agent_name(job.agent_command)}`",
        "",
        scrub(job.task),
    ]
    return _cut("\n".join(lines), DETAILS_CHARS)


def agent_name(command: str) -> str:
    """The agent program's name (`claude`, `codex`, a script's name) from its command."""
    words = command.split()
    program = next((w for w in words if not w.startswith("-") and w not in {"sh", "env"}), "")
    return PurePosixPath(program).name or "agent"


def agent_summary(command: str, run: int) -> str:
    """`claude, attempt 2` for the agent activity."""
    return f"{agent_name(command)}, attempt {run}"


def approval_summary(action: str, tool: str) -> str:
    """`waiting for approval of git push origin main`."""
    return _cut(scrub(f"waiting for approval of {' '.join((action or tool).split())}"), 200)


def phase_details(job: JobInput, phase: str) -> str:
    """The job's current details: its phase."""
    return f"Job {job.number} on `{job.repo}`: {phase}"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
