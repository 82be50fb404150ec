"""`codedesk doctor`: a pass or fail line for each thing codedesk needs, and the fix; and
`codedesk patches`: the workflow patches, and the running workflows still on their old branch."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from surfaces.cli.common.runner import run, settings
from surfaces.render.terminal.console import out

if TYPE_CHECKING:
    from surfaces.clients.patch_standings import PatchStanding
    from surfaces.doctor_checks import Check

STYLE = {"ok": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}


def doctor(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Check the server, the workers, search attributes, git, the agents, sandbox and imports."""
    from surfaces.doctor_checks import run_checks

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


def patches(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List each workflow patch and the running workflows that may still need its old branch
    (a patch retires once none does); fail for any on a retired patch's old branch."""
    from surfaces.clients.patch_standings import patch_standings
    from workers.temporal.client import connect

    config = settings()

    async def body() -> list[PatchStanding]:
        return await patch_standings(await connect(config))

    standings = run(body())
    if as_json:
        typer.echo(json.dumps([_standing_json(standing) for standing in standings], indent=2))
    else:
        for standing in standings:
            _print_standing(standing)
    raise typer.Exit(1 if any(standing.stuck for standing in standings) else 0)


def _standing_json(standing: PatchStanding) -> dict[str, object]:
    patch = standing.patch
    return {
        "name": patch.name,
        "state": patch.state.value,
        "came": patch.came,
        "commit": patch.commit,
        "guards": patch.guards,
        "asked_by": sorted(patch.asked_by),
        "old_branch_recording": patch.old_branch,
        "may_need_old_branch": [run.workflow_id for run in standing.may_need],
        "cannot_replay": standing.stuck,
    }


def _print_standing(standing: PatchStanding) -> None:
    from rich.text import Text

    patch = standing.patch
    line = Text()
    line.append(f"{patch.name}", style="bold")
    line.append(f" ({patch.state.value}, {patch.came}, {patch.commit}): {patch.guards}")
    out.print(line)
    if standing.stuck:
        for ident, why in sorted(standing.stuck.items()):
            out.print(Text(f"  cannot replay {ident}: {why}", style=STYLE["fail"]))
    elif standing.may_need:
        shown = ", ".join(run.workflow_id for run in standing.may_need)
        out.print(f"  may still need its old branch: {shown}")
    else:
        out.print(Text("  no running workflow needs its old branch", style=STYLE["ok"]))
