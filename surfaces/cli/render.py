"""Tables of clones and jobs, and laid-out reports and cards, for a terminal or a pipe."""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from desk.payloads.jobs import CloneInfo
from surfaces.cli.plain_table import JOB_COLUMNS, job_cells
from surfaces.cli.runner import out
from surfaces.clients.job_listing import JobRow
from surfaces.render.blocks import Block
from surfaces.render.text import plain, terminal


def clones_table(clones: list[CloneInfo]) -> Table:
    table = Table(box=None, pad_edge=False)
    hosts = any(clone.host for clone in clones)
    for column in ("repo", "host", "branch", "upstream", "±", "dirty", "last commit", "path"):
        if column != "host" or hosts:
            table.add_column(column)
    for clone in clones:
        distance = f"+{clone.ahead}/-{clone.behind}" if clone.upstream else ""
        last = f"{clone.head[:10]} {clone.last_commit}" if clone.head else "(no commits)"
        last = "(refused: see below)" if clone.refusal else last
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


def clone_details(clone: CloneInfo) -> list[str]:
    """What the table has no room for: the README's line, the last commits, the instruction
    files an agent reads and the CI files, a line each (none when there is nothing to say)."""
    ci = [*clone.ci_hints, *(f"{name} (a symlink: not read)" for name in clone.refused_folders)]
    commits = " · ".join(f"{c.sha[:10]} {c.subject}" for c in clone.recent_commits)
    lines = [
        ("refused: ", clone.refusal),
        ("", clone.summary),
        ("last commits: ", commits),
        ("agents read: ", ", ".join(clone.instruction_files)),
        ("ci: ", ", ".join(ci)),
    ]
    return [f"{clone.repo}: {label}{text}" for label, text in lines if text]


def jobs_table(rows: list[JobRow], zone: str = "") -> Table:
    table = Table(box=None, pad_edge=False)
    for column in JOB_COLUMNS:
        table.add_column(column)
    for row in rows:
        table.add_row(*(escape(cell) for cell in job_cells(row, zone)))
    return table


def print_blocks(blocks: list[Block]) -> None:
    """Print laid-out blocks: styled on a terminal, plain text when piped (never markup)."""
    if out.is_terminal:
        for styled in terminal(blocks):
            out.print(styled)
    else:
        for line in plain(blocks):
            typer.echo(line)
