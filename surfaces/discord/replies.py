"""Markdown for job reports and the commands' answers; every value from a job or a repo escaped.

Each function returns one markdown text; `surfaces.discord.text.split_message` cuts it into
messages. Code (agent output, git state) goes in fenced blocks through the card renderer's
code escaping, so nothing in it can close the block.
"""

from __future__ import annotations

from collections.abc import Sequence

from desk.approvals import ApprovalState
from desk.models import CloneInfo, JobReport, JobStatus
from desk.shipping import ChangeReport, PushResult, PushStatus
from surfaces import card_text
from surfaces.desk_client import JobRow
from surfaces.discord.text import code, cut, plain

TASK_CHARS = 80


def fenced(text: str, lang: str = "text") -> str:
    return f"```{lang}\n{card_text.code(text.rstrip())}\n```"


def report_text(report: JobReport) -> str:
    """A job's report as the thread's last message(s)."""
    lines = [f"## Job {report.number} on {code(report.repo)}: {report.outcome.value}"]
    if report.task:
        lines.append(f"**Task**: {plain(cut(report.task, 300))}")
    if report.reason:
        lines.append(plain(report.reason))
    if report.failure_category:
        exit_code = f", exit code {report.exit_code}" if report.exit_code is not None else ""
        lines.append(f"**Failure**: {plain(report.failure_category)}{exit_code}")
    if report.branch:
        kept = " (kept)" if report.branch_kept else ""
        lines.append(f"**Branch**: {code(report.branch)}{kept}")
    if report.branch_kept and report.worktree:
        lines.append(f"**Worktree**: {code(report.worktree)}")
    if report.head:
        lines.append(f"**Clone HEAD**: {code(report.head)}")
    if report.commits:
        lines.append(f"**Commits** ({len(report.commits) + report.commits_omitted}):")
        lines += [f"- {code(c.sha[:12])} {plain(c.subject)}" for c in report.commits]
        if report.commits_omitted:
            lines.append(f"- … and {report.commits_omitted} more")
    listed = (("Conflicting", report.conflict_files), ("Uncommitted", report.uncommitted))
    for title, files in listed:
        if files:
            lines.append(f"**{title} files**: " + ", ".join(code(name) for name in files))
    if report.held_calls:
        lines.append("**Held calls**:")
        for held in report.held_calls:
            note = f" ({plain(held.note)})" if held.note else ""
            lines.append(f"- {code(held.tool)} {held.verdict.value}: {plain(held.summary)}{note}")
        if report.held_calls_omitted:
            lines.append(f"- … and {report.held_calls_omitted} more")
    if report.git_state:
        lines += ["**Git state**:", fenced(report.git_state)]
    if report.output:
        earlier = ""
        if report.output_cut:
            log = f"; whole log: {code(report.log_path)}" if report.log_path else ""
            earlier = f" ({report.output_cut} earlier characters cut{log})"
        lines += [f"**Agent output**{earlier}:", fenced(report.output)]
    return "\n".join(lines)


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
        lines.append("- " + " · ".join(parts))
    return "\n".join(lines)


def jobs_text(rows: Sequence[JobRow]) -> str:
    if not rows:
        return "No jobs yet: start one with `/task`."
    lines = [f"**{len(rows)} jobs**"]
    for row in rows:
        outcome = row.outcome or ("" if row.status == "running" else row.status)
        phase = f"queued #{row.position}" if row.position else row.phase
        state = " · ".join(plain(part) for part in (phase, outcome) if part)
        by = f" · {plain(row.requester)}" if row.requester else ""
        lines.append(
            f"- **{row.number}** {code(row.repo)} {state}{by}: {plain(cut(row.task, TASK_CHARS))}"
        )
    return "\n".join(lines)


def status_text(status: str, job: JobStatus) -> str:
    """`/job N`: where the job is, and its report once it has one."""
    if job.report is not None:
        return report_text(job.report)
    lines = [f"## Job {job.number} on {code(job.repo)}: {plain(status)}, {job.phase.value}"]
    if job.task:
        lines.append(f"**Task**: {plain(cut(job.task, 300))}")
    if job.branch:
        lines.append(f"**Branch**: {code(job.branch)}")
    return "\n".join(lines)


def change_report_text(made: ChangeReport) -> str:
    """`/report`: what a push of the clone's HEAD would ship, and how to ship it."""
    total = len(made.commits) + made.commits_omitted
    lines = [
        f"## {code(made.repo)}: {total} commit(s) ahead of {code('origin/' + made.default_branch)}",
        f"**HEAD**: {code(made.head)}",
        f"**Branch**: {code(made.default_branch)} (remote at {code(made.remote_tip[:12])})",
        f"**Destination**: {code(made.destination)}",
        "**Commits**:",
        *(f"- {code(commit.sha[:12])} {plain(commit.subject)}" for commit in made.commits),
    ]
    if made.commits_omitted:
        lines.append(f"- … and {made.commits_omitted} more")
    lines.append("**Files**:")
    lines += [f"- +{f.added} -{f.deleted} {code(f.path)}" for f in made.files]
    if made.files_omitted:
        lines.append(f"- … and {made.files_omitted} more")
    lines.append(f"To ship it: `/push repo:{made.repo} sha:{made.head}`")
    return "\n".join(lines)


def push_text(result: PushResult) -> str:
    if result.status == PushStatus.PUSHED:
        again = " (the remote already had it)" if result.already else ""
        by = f", approved by {plain(result.approved_by)}" if result.approved_by else ""
        return (
            f"Pushed {code(result.sha)} to {code(result.branch)} at "
            f"{code(result.destination)}{again}{by}."
        )
    return f"Not pushed ({result.status.value}): {plain(result.reason)}"


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
