"""`codedesk spend`: what finished jobs cost, per day, repository and requester."""

from __future__ import annotations

import json

import typer

from surfaces.cli.common.runner import reach, run


def spend(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """What finished jobs cost, added up per day, repository and requester (known costs only);
    today's total against the desk's daily spend limit when it has one."""
    from surfaces.clients.listings.spend_totals import spend as read_spend
    from surfaces.render.terminal.tables import plain_table, shown_cost
    from workers.temporal.runtime import server_address
    from workers.temporal.service import connect_service

    where = reach()

    async def body() -> None:
        service = await connect_service(
            server_address(where.home, where.temporal_address), where.settings
        )
        found = await read_spend(service, where.namespace, where.task_queue, where.time_zone)
        if as_json:
            typer.echo(json.dumps(found.as_json(), indent=2))
            return
        apart = []
        if found.unknown:
            apart.append(f"{found.unknown} finished with their cost unknown")
        if found.running:
            apart.append(f"{found.running} still running")
        said = f" ({', '.join(apart)}: not counted)" if apart else ""
        typer.echo(f"Spent {shown_cost(found.total)} on {found.jobs} jobs{said}.")
        if found.day is not None:
            from surfaces.render.words.daily_limit_words import day_total_line

            typer.echo(day_total_line(found.day, found.day.action, where.time_zone))
        for title, values in (
            ("day", found.by_day),
            ("repository", found.by_repo),
            ("requester", found.by_requester),
        ):
            if values:
                rows = [(key, shown_cost(value)) for key, value in sorted(values.items())]
                typer.echo(f"\nby {title}:")
                typer.echo(plain_table((title, "cost"), rows))

    run(body())
