"""Rich rendering of clones, jobs and reports for a terminal."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from desk.models import CloneInfo, JobOutcome, JobReport
from surfaces.desk_client import JobRow

OUTCOME_STYLE = {
    JobOutcome.INTEGRATED: "green",
    JobOutcome.NOTHING: "yellow",
    JobOutcome.CONFLICT: "red",
    JobOutcome.REFUSED: "red",
    JobOutcome.FAILED: "red",
    JobOutcome.TIMED_OUT: "red",
    JobOutcome.CANCELLED: "yellow",
}


def clones_table(clones: list[CloneInfo]) -> Table:
    table = Table(box=None, pad_edge=False)
    hosts = any(clone.host for clone in clones)
    for column in ("repo", "host", "branch", "upstream", "±", "dirty", "last commit", "path"):
        if column != "host" or hosts:
            table.add_column(column)
    for clone in clones:
        distance = f"+{clone.ahead}/-{clone.behind}" if clone.upstream else ""
        last = f"{clone.head[:10]} {clone.last_commit}" if clone.head else "(no commits)"
        dirty = str(len(clone.dirty)) if clone.dirty else ""
        table.add_row(
            escape(clone.repo),
            *([escape(clone.host)] if hosts else []),
            *(escape(cell) for cell in (clone.branch, clone.upstream, distance)),
            escape(dirty),
            escape(last + (f"  [fetch failed: {clone.error}]" if clone.error else "")),
            escape(clone.path),
        )
    return table


def jobs_table(rows: list[JobRow]) -> Table:
    table = Table(box=None, pad_edge=False)
    for column in ("job", "repo", "phase", "outcome", "requester", "started", "task"):
        table.add_column(column)
    for row in rows:
        started = f"{row.started.astimezone():%Y-%m-%d %H:%M:%S}" if row.started else ""
        outcome = row.outcome or ("" if row.status == "running" else row.status)
        phase = f"queued #{row.position}" if row.position else row.phase
        if row.waiting_for_host:
            phase = f"{phase}, waiting for host {row.waiting_for_host}"
        table.add_row(
            str(row.number),
            *(escape(cell) for cell in (row.repo, phase, outcome, row.requester, started)),
            escape(row.task if len(row.task) <= 60 else row.task[:59] + "…"),
        )
    return table


def report_lines(report: JobReport) -> list[str]:
    """The report as rich-markup lines; every value from the job is escaped."""
    style = OUTCOME_STYLE.get(report.outcome, "white")
    lines = [f"[bold]job {report.number}[/] on {escape(report.repo)}: [{style}]{report.outcome}[/]"]
    if report.reason:
        lines.append(f"  {escape(report.reason)}")
    if report.failure_category:
        code = f", exit code {report.exit_code}" if report.exit_code is not None else ""
        lines.append(f"  failure: {escape(report.failure_category)}{code}")
    if report.branch:
        kept = " (kept)" if report.branch_kept else ""
        lines.append(f"  branch: {escape(report.branch)}{kept}")
    if report.confinement:
        unconfined = " (the agent ran unconfined)" if report.confinement == "none" else ""
        lines.append(f"  sandbox: {escape(report.confinement)}{unconfined}")
    if report.branch_kept and report.worktree:
        lines.append(f"  worktree: {escape(report.worktree)}")
    if report.head:
        lines.append(f"  clone HEAD: {report.head}")
    if report.commits:
        lines.append(f"  commits ({len(report.commits) + report.commits_omitted}):")
        lines += [f"    {c.sha[:12]} {escape(c.subject)}" for c in report.commits]
        if report.commits_omitted:
            lines.append(f"    … and {report.commits_omitted} more")
    for title, files in (
        ("conflicting", report.conflict_files),
        ("uncommitted", report.uncommitted),
    ):
        if files:
            lines.append(f"  {title} files: {escape(', '.join(files))}")
    if report.git_state:
        lines.append("  git state:")
        lines += [f"    {escape(line)}" for line in report.git_state.splitlines()]
    if report.output:
        lines.append("  agent output:")
        if report.output_cut:
            lines.append(
                f"    [dim][… {report.output_cut} earlier characters cut; whole log: "
                f"{escape(report.log_path)}][/]"
            )
        lines += [f"    {escape(line)}" for line in report.output.rstrip().splitlines()]
    return lines
