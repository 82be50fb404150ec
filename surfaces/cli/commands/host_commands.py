"""`codedesk hosts`: the machines of the desk, whether a worker polls each, their repos and jobs."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from surfaces.cli.common.runner import with_desk
from surfaces.render.terminal.console import out

if TYPE_CHECKING:
    from surfaces.clients.desk_client import DeskClient
    from surfaces.clients.host_client import HostRow


HOST_COLUMNS = ("host", "worker", "slots", "repos", "running jobs", "shelf")


def hosts(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List hosts: whether a worker polls each now, its shelf, job slots, repos, running jobs."""
    from surfaces.clients.host_client import host_rows
    from surfaces.render.terminal.tables import print_table

    async def body(desk: DeskClient) -> None:
        state = await desk.desk_state()
        if state is None:
            out.print("The desk does not answer: is a worker running (`codedesk worker`)?")
            raise typer.Exit(1)
        running = {row.number: row.repo for row in await desk.jobs() if row.status == "running"}
        rows = await host_rows(desk.client, desk.settings.task_queue, state, running)
        if as_json:
            typer.echo(json.dumps([row.model_dump(mode="json") for row in rows], indent=2))
        elif not rows:
            out.print("No host has started a worker yet: run `codedesk worker` on one.")
        else:
            print_table(HOST_COLUMNS, [_host_cells(row) for row in rows])

    with_desk(body)


def _host_cells(row: HostRow) -> tuple[str, ...]:
    return (
        row.name,
        "polling" if row.polling else "none",
        str(row.slots),
        ", ".join(row.repos),
        ", ".join(str(number) for number in row.running_jobs),
        row.shelf,
    )
