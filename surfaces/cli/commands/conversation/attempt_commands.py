"""`codedesk pick`: pick one of the attempts `task --agents/--attempts` asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from surfaces.cli.common.options import JOB_NUMBER
from surfaces.cli.common.runner import refuse_inside_a_job, with_desk
from surfaces.render.terminal.console import out

if TYPE_CHECKING:
    from surfaces.clients.desk_client import DeskClient


def pick(
    number: int = JOB_NUMBER,
    label: str = typer.Argument(..., metavar="ATTEMPT", help="The attempt to integrate: a, b…"),
) -> None:
    """Pick one of a job's attempts: it integrates, the others are removed."""
    refuse_inside_a_job("pick")

    async def body(desk: DeskClient) -> None:
        picked = await desk.pick(number, label)
        out.print(
            f"job {number}: attempt {picked.label} (job {picked.attempt}) integrates now, the "
            f"others are removed; `codedesk watch {number}` follows it.",
            markup=False,
        )

    with_desk(body)
