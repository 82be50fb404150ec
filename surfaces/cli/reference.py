"""The README's reference tables, read off the CLI and the settings so they cannot drift.

`python -m surfaces.cli.reference README.md` rewrites the tables between their markers; the
tests fail while the README differs from what this module generates.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperOption

from desk.config.settings import settings_table
from surfaces.cli.main import app

TABLES = {
    "commands": ("| command | what it does |", "| --- | --- |"),
    "settings": (
        "| name | environment variable | default | meaning |",
        "| --- | --- | --- | --- |",
    ),
}


def command_rows() -> list[str]:
    """One markdown row per option of the app itself (`--version`), then one per command:
    usage with arguments and options, and its help."""
    group = typer.main.get_command(app)
    options = [param for param in group.params if isinstance(param, TyperOption)]
    own = [f"| `codedesk {option.opts[0]}` | {option.help} |" for option in options]
    return [*own, *_rows(group, [])]


def settings_rows() -> list[str]:
    return ["| `{}` | `{}` | `{}` | {} |".format(*row) for row in settings_table()]


def table(name: str) -> str:
    rows = command_rows() if name == "commands" else settings_rows()
    return "\n".join([*TABLES[name], *rows])


def with_tables(readme: str) -> str:
    """The README with each generated table replaced between its markers."""
    for name in TABLES:
        start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
        before, _, rest = readme.partition(start)
        _, _, after = rest.partition(end)
        readme = f"{before}{start}\n{table(name)}\n{end}{after}"
    return readme


def _rows(group: Any, prefix: list[str]) -> Iterator[str]:
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from _rows(command, [*prefix, name])
            continue
        params = command.params
        arguments = [p.metavar or p.name.upper() for p in params if _kind(p) == "argument"]
        options = [
            f"[{p.opts[0]}]" for p in params if _kind(p) == "option" and p.opts[0] != "--help"
        ]
        usage = " ".join(["codedesk", *prefix, name, *arguments, *options])
        summary = (command.help or "").strip().splitlines()[0]
        yield f"| `{usage}` | {summary} |"


def _kind(param: Any) -> str:
    return str(param.param_type_name)


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "README.md")
    target.write_text(with_tables(target.read_text()))
