"""Tables of clones and jobs, and laid-out reports and cards, for a terminal or a pipe."""

from __future__ import annotations

import typer
from rich.markup import escape
from rich.table import Table

from desk.models import CloneInfo
from surfaces.cli.runner import out
from surfaces.desk_client import JobRow
from surfaces.layout import Block
from surfaces.render_text import plain, terminal


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


def print_blocks(blocks: list[Block]) -> None:
    """Print laid-out blocks: styled on a terminal, plain text when piped (never markup)."""
    if out.is_terminal:
        for styled in terminal(blocks):
            out.print(styled)
    else:
        for line in plain(blocks):
            typer.echo(line)
