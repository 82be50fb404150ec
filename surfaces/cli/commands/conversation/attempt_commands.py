"""`codedesk pick` and the attempts of `task --agents/--attempts`: several agents at one task."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from desk.agents.presets import PRESETS, preset_command
from desk.errors import AgentCommandError
from surfaces.cli.common.options import JOB_NUMBER
from surfaces.cli.common.runner import refuse_inside_a_job, with_desk
from surfaces.render.terminal.console import out

if TYPE_CHECKING:
    from desk.payloads.conversation.attempt_payloads import AttemptSpec
    from surfaces.clients.desk_client import DeskClient


def attempts_asked(agents: str | None, count: int | None, command: str | None) -> list[AttemptSpec]:
    """The attempts `--agents a,b` (presets) or `--attempts K` (K runs of `command`) ask for;
    none when neither is given."""
    from desk.names import ATTEMPT_LABELS
    from desk.payloads.conversation.attempt_payloads import attempt_specs

    if agents is not None and count is not None:
        raise AgentCommandError("Give --agents or --attempts, not both.")
    if agents is not None:
        names = [name.strip() for name in agents.split(",") if name.strip()]
        unknown = [name for name in names if name not in PRESETS]
        if unknown or len(names) < 2:
            raise AgentCommandError(
                f"--agents {agents!r}: name two presets or more, separated by commas, from "
                f"{', '.join(sorted(PRESETS))}"
                + (f" ({', '.join(unknown)} is none)." if unknown else ".")
            )
        return attempt_specs([(name, preset_command(name)) for name in names])
    if count is None:
        return []
    if not 2 <= count <= len(ATTEMPT_LABELS):
        raise AgentCommandError(f"--attempts {count}: ask for 2 or more (the host says how many).")
    return attempt_specs([("", command or "")] * count)


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
