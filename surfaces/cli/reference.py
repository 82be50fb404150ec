"""The README's command reference, read off the CLI itself so the two cannot drift."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import typer

from surfaces.cli.main import app


def command_rows() -> list[str]:
    """One markdown table row per command: usage with arguments and options, and its help."""
    return list(_rows(typer.main.get_command(app), []))


def _rows(group: Any, prefix: list[str]) -> Iterator[str]:
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from _rows(command, [*prefix, name])
            continue
        arguments = [p.metavar or p.name.upper() for p in command.params if _kind(p) == "argument"]
        options = [
            f"[{p.opts[0]}]" for p in command.params if _kind(p) == "option" and p.opts[0] != "--help"
        ]
        usage = " ".join(["codedesk", *prefix, name, *arguments, *options])
        summary = (command.help or "").strip().splitlines()[0]
        yield f"| `{usage}` | {summary} |"


def _kind(param: Any) -> str:
    return str(param.param_type_name)
