"""`codedesk doctor`: a pass or fail line for each thing codedesk needs, and the fix."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from surfaces.cli.runner import out, run, settings

if TYPE_CHECKING:
    from surfaces.doctor import Check

STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}


def doctor(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Check the server, the workers, search attributes, git, the agents, sandbox and imports."""
    from surfaces.doctor import run_checks

    config = settings()
    checks = run(run_checks(config))
    if as_json:
        typer.echo(json.dumps([check.as_dict() for check in checks], indent=2))
    else:
        for check in checks:
            _print(check)
    raise typer.Exit(1 if any(check.status == "fail" for check in checks) else 0)


def _print(check: Check) -> None:
    from rich.text import Text

    line = Text()
    line.append(f"{check.status:<5}", style=STYLE.get(check.status))
    line.append(f" {check.name}: ", style="bold")
    line.append(check.detail)
    out.print(line)
