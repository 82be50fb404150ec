"""The shelf's table and lines, and laid-out reports and cards, for a terminal or a pipe."""

from __future__ import annotations

import typer

from desk.payloads.jobs import CloneInfo
from surfaces.render.blocks import Block
from surfaces.render.terminal.block_lines import plain, terminal
from surfaces.render.terminal.console import out


def clone_cells(clones: list[CloneInfo]) -> tuple[list[str], list[list[str]]]:
    """The shelf's table: its columns (a host column when any clone has a host) and rows."""
    hosts = any(clone.host for clone in clones)
    columns = ["repo", "host", "branch", "upstream", "±", "dirty", "last commit", "path"]
    if not hosts:
        columns.remove("host")
    rows = []
    for clone in clones:
        distance = f"+{clone.ahead}/-{clone.behind}" if clone.upstream else ""
        last = f"{clone.head[:10]} {clone.last_commit}" if clone.head else "(no commits)"
        last = "(refused: see below)" if clone.refusal else last
        dirty = str(len(clone.dirty)) if clone.dirty else ""
        rows.append(
            [
                clone.repo,
                *([clone.host] if hosts else []),
                clone.branch,
                clone.upstream,
                distance,
                dirty,
                last + (f"  [fetch failed: {clone.error}]" if clone.error else ""),
                clone.path,
            ]
        )
    return columns, rows


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


def print_blocks(blocks: list[Block]) -> None:
    """Print laid-out blocks: styled on a terminal, plain text when piped (never markup)."""
    if out.is_terminal:
        for styled in terminal(blocks):
            out.print(styled)
    else:
        for line in plain(blocks):
            typer.echo(line)
