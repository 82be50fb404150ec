"""The CLI's tables: their cells, styled on a terminal, plain text for a pipe (never cut).

A pipe gets the plain table without rich (a listing stays light), every cell whole: rich would
lay a table out for 80 columns there and cut its cells (a path to `…/s…`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from desk.config.basics.dates import shown_date
from desk.names import ATTEMPT_LABELS
from surfaces.clients.listings.job_listing import JobRow

JOB_COLUMNS = ("job", "repo", "phase", "outcome", "cost", "requester", "started", "task")
TASK_CHARS = 60
"""Characters of a job's task a table shows."""


def job_cells(row: JobRow, zone: str = "") -> tuple[str, ...]:
    """One job's cells, in JOB_COLUMNS order, for every target; its start time in `zone`."""
    started = shown_date(row.started, zone) if row.started else ""
    outcome = row.outcome or ("" if row.status == "running" else row.status)
    phase = f"queued #{row.position}" if row.position else row.phase
    if row.waiting_for_host:
        phase = f"{phase}, waiting for host {row.waiting_for_host}"
    if row.waiting_for_day:
        phase = f"{phase}, daily spend limit reached: until {shown_date(row.waiting_for_day, zone)}"
    if row.attempts:
        labels = ATTEMPT_LABELS[: len(row.attempts)]
        each = zip(labels, row.attempts, row.attempt_phases or [""] * len(labels), strict=False)
        phase += " (" + ", ".join(f"{a} {shown or f'job {n}'}" for a, n, shown in each) + ")"
    task = f"(continues {row.continues}) {row.task}" if row.continues else row.task
    task = task if len(task) <= TASK_CHARS else task[: TASK_CHARS - 1] + "…"
    cost = shown_cost(row.cost)
    return (str(row.number), row.repo, phase, outcome, cost, row.requester, started, task)


def shown_cost(cost: float | None) -> str:
    """Dollars as a table shows them: cents, or four places below a cent; empty when unknown."""
    if cost is None:
        return ""
    return f"${cost:.2f}" if cost >= 0.01 or cost == 0 else f"${cost:.4f}"


def plain_table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, two spaces apart, never wrapped: one line a job."""
    widths = [max(len(line[k]) for line in [columns, *rows]) for k in range(len(columns))]
    lines = [columns, *rows]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def print_table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print a table: laid out by rich on a terminal, plain and uncut when piped."""
    if not sys.stdout.isatty():
        typer.echo(plain_table(columns, rows))
        return
    from rich.table import Table
    from rich.text import Text

    from surfaces.render.terminal.console import out

    table = Table(box=None, pad_edge=False)
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    out.print(table)
