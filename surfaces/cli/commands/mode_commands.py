"""`codedesk mode`: show the yolo and long-running modes in force, or switch one."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from surfaces.cli.common.runner import fail, refuse_inside_a_job, run, settings
from surfaces.render.terminal.console import out

if TYPE_CHECKING:
    from desk.policy.modes import ModesView, ModeSwitched


def mode(
    name: str = typer.Argument(
        None, metavar="MODE", help="yolo or long-running; without it, show the modes in force."
    ),
    value: str = typer.Argument(None, metavar="VALUE", help="on or off."),
    job: int = typer.Option(None, "--job", min=1, help="Switch the mode of this job only."),
    channel: str = typer.Option(
        None, "--channel", help="Switch the mode of the jobs started from this chat channel (id)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show the modes in force (desk, channels, jobs), or switch one as an owner."""
    if name is None:
        if job is not None or channel is not None:
            raise fail("Name a mode and on or off to switch it, e.g. `codedesk mode yolo on`.")
        raise typer.Exit(_show(as_json))
    refuse_inside_a_job("mode")
    if value is None:
        raise fail(f"Say on or off: `codedesk mode {name} on` or `codedesk mode {name} off`.")
    if job is not None and channel is not None:
        raise fail("Give --job or --channel, not both: a switch has one scope.")
    raise typer.Exit(_switch(name, value, job, channel, as_json))


def _show(as_json: bool) -> int:
    from surfaces.clients.mode_client import ModesClient
    from workers.temporal.client import connect

    config = settings()

    async def body() -> int:
        view = await ModesClient(await connect(config), config).view()
        if as_json:
            typer.echo(view.model_dump_json(indent=2))
        else:
            _print_view(view, config.time_zone)
        return 0

    return run(body())


def _switch(name: str, value: str, job: int | None, channel: str | None, as_json: bool) -> int:
    from desk.holds.approvals import Principal
    from desk.policy.modes import ScopeKind
    from surfaces.clients.mode_client import ModesClient
    from workers.temporal.client import connect

    config = settings()
    by = Principal(id=config.owner, name=config.owner.removeprefix("local:"))
    scope, target = ScopeKind.DESK, ""
    if job is not None:
        scope, target = ScopeKind.JOB, str(job)
    elif channel is not None:
        scope, target = ScopeKind.CHANNEL, channel

    async def body() -> int:
        client = ModesClient(await connect(config), config)
        switched = await client.switch(name, value.lower(), by=by, scope=scope, target=target)
        if as_json:
            typer.echo(json.dumps(switched.model_dump(mode="json"), indent=2))
        else:
            out.print(_switched_line(switched), markup=False)
        return 0

    return run(body())


def _switched_line(switched: ModeSwitched) -> str:
    jobs = ", ".join(str(number) for number in switched.jobs)
    reached = f" Running jobs told now: {jobs}." if jobs else " No running job is in that scope."
    return f"Switched {switched.switch.said()}.{reached}"


def _print_view(view: ModesView, zone: str) -> None:
    from desk.config.basics.dates import shown_date
    from desk.policy.modes import Mode, ModeSwitch

    def line(switches: dict[Mode, ModeSwitch]) -> str:
        said = [switches[mode].said() for mode in Mode if mode in switches]
        return "; ".join(said) or "nothing switched"

    out.print(f"desk: {line(view.desk)}", markup=False)
    for channel, switches in sorted(view.channels.items()):
        out.print(f"channel {channel}: {line(switches)}", markup=False)
    if not view.jobs:
        out.print("No job runs or waits now.", markup=False)
    for number, modes in sorted(view.jobs.items()):
        said = [s.said() if (s := modes.of(mode)) else f"{mode.value} off" for mode in Mode]
        out.print(f"job {number}: {'; '.join(said)}", markup=False)
    if view.policy is not None:
        from surfaces.render.words.policy_words import mode_policy_line

        out.print(mode_policy_line(view.policy), markup=False)
    for refusal in view.refusals[-3:]:
        at = shown_date(refusal.at, zone) if refusal.at else "?"
        out.print(f"refused at {at}: {refusal.reason}", markup=False)
