"""Markdown for job reports and the commands' answers; every value from a job or a repo escaped.

Each function returns one markdown text; `surfaces.render.discord.message_text.split_message`
cuts it into messages. The job report, the change report and a push's result are laid out once
(`surfaces.render.layout.report_layout`) and rendered here as markdown
(`surfaces.render.discord.markdown`).
"""

from __future__ import annotations

from collections.abc import Sequence

from desk.holds.approvals import ApprovalState
from desk.payloads.jobs import CloneInfo, JobReport, JobStatus
from desk.payloads.ship_payloads import ChangeReport, PushResult
from desk.policy.modes import modes_said
from surfaces.clients.desk_client import JobRow
from surfaces.render.discord.markdown import markdown
from surfaces.render.discord.message_text import code, cut, plain
from surfaces.render.layout.report_layout import change_report, job_report
from surfaces.render.words.push_words import push_result

TASK_CHARS = 80


def report_text(report: JobReport, zone: str = "") -> str:
    """A job's report as the thread's last message(s), its times dated in `zone`."""
    return markdown(job_report(report, zone))


def repos_text(clones: Sequence[CloneInfo]) -> str:
    if not clones:
        return "The shelf is empty: add a repository with `codedesk repo add owner/repo`."
    lines = [f"**{len(clones)} repositories on the shelf**"]
    for clone in clones:
        parts = [code(clone.repo)]
        if clone.branch:
            parts.append(f"on {code(clone.branch)}")
        if clone.upstream:
            parts.append(f"+{clone.ahead}/-{clone.behind}")
        if clone.dirty:
            parts.append(f"{len(clone.dirty)} dirty")
        if clone.head:
            parts.append(f"{code(clone.head[:10])} {plain(cut(clone.last_commit, 60))}")
        if clone.error:
            parts.append(f"(fetch failed: {plain(clone.error)})")
        if clone.refusal:
            parts.append(f"(refused: {plain(clone.refusal)})")
        lines.append("- " + " · ".join(parts))
        if clone.summary:
            lines.append(f"  {plain(cut(clone.summary, 120))}")
        for label, names in (("agents read", clone.instruction_files), ("CI", clone.ci_hints)):
            if names:
                lines.append(f"  {label}: {', '.join(code(name) for name in names[:5])}")
    return "\n".join(lines)


def jobs_text(rows: Sequence[JobRow]) -> str:
    if not rows:
        return "No jobs yet: start one with `/task`."
    lines = [f"**{len(rows)} jobs**"]
    for row in rows:
        outcome = row.outcome or ("" if row.status == "running" else row.status)
        phase = f"queued #{row.position}" if row.position else row.phase
        if row.waiting_for_day:
            phase += ", until the next UTC day (daily spend limit)"
        state = " · ".join(plain(part) for part in (phase, outcome) if part)
        by = f" · {plain(row.requester)}" if row.requester else ""
        lines.append(
            f"- **{row.number}** {code(row.repo)} {state}{by}: {plain(cut(row.task, TASK_CHARS))}"
        )
    return "\n".join(lines)


def status_text(status: str, job: JobStatus, zone: str = "") -> str:
    """`/job N`: where the job is, and its report once it has one (dated in `zone`)."""
    if job.report is not None:
        return report_text(job.report, zone)
    lines = [f"## Job {job.number} on {code(job.repo)}: {plain(status)}, {job.phase.value}"]
    if job.task:
        lines.append(f"**Task**: {plain(cut(job.task, 300))}")
    if job.branch:
        lines.append(f"**Branch**: {code(job.branch)}")
    lines.append(f"**Modes**: {plain(modes_said(job.modes, job.following))}")
    return "\n".join(lines)


def change_report_text(made: ChangeReport) -> str:
    """`/report`: what a push of the clone's HEAD would ship, and how to ship it."""
    return markdown(change_report(made)) + f"\nTo ship it: `/push repo:{made.repo} sha:{made.head}`"


def push_text(result: PushResult) -> str:
    return markdown(push_result(result))


def approvals_text(states: Sequence[ApprovalState], shown: int) -> str:
    """`/approvals`: the open ones; the first `shown` follow as cards with their buttons."""
    if not states:
        return "No open approvals."
    lines = [f"**{len(states)} open approvals**"]
    for state in states:
        title = plain(state.request.title) if state.request.title else code(state.request.tool)
        lines.append(f"- {code(state.approval_id)}: {title}")
    if len(states) > shown:
        lines.append(f"The first {shown} follow as cards; answer the rest from the CLI.")
    return "\n".join(lines)
