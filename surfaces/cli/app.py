"""The `codedesk` typer app: its options and every command.

Every command module imports only typer and light modules at its top; what a command needs (the
Temporal SDK, settings, rich, discord.py, GitPython) it imports when it runs, so a usage error
costs little more than starting Python and typer (whose pydantic-based checks of plain values
`surfaces.cli.coercion` replaces); tests/cli/test_cli_imports.py checks it. The top-level help
does without this module altogether (`surfaces.cli.main`).
"""

from __future__ import annotations

import typer

from surfaces.cli import coercion
from surfaces.cli.commands import (
    approval_commands,
    discord_commands,
    host_commands,
    job_commands,
    mode_commands,
    server_commands,
    ship_commands,
    spend_commands,
)
from surfaces.cli.commands.conversation import answer_commands, attempt_commands
from surfaces.cli.commands.doctor_commands import doctor, patches
from surfaces.cli.commands.repo_commands import repo_app
from surfaces.cli.common.options import DeskTyper
from surfaces.cli.common.runner import run, settings

coercion.install()
app = DeskTyper(
    name="codedesk",
    help="Run AI coding jobs on real repositories as durable Temporal workflows.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help and usage errors: rich's help panels cost more to import than the help is worth.
    rich_markup_mode=None,
    # Every command's context inherits these from the app's.
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        typer.echo(f"codedesk {version('codedesk')}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(
        False,
        "--version",
        is_eager=True,
        callback=_print_version,
        help="Print codedesk's version (of the installed distribution) and exit.",
    ),
) -> None:
    """Run AI coding jobs on real repositories as durable Temporal workflows."""


app.command()(server_commands.up)
app.command()(server_commands.worker)
app.add_typer(repo_app, name="repo")
app.command()(host_commands.hosts)
# A task is text: one that starts with '-' is not an option of `task` (unless it is exactly one).
app.command(context_settings={"ignore_unknown_options": True})(job_commands.task)
app.command()(job_commands.jobs)
app.command()(spend_commands.spend)
app.command()(job_commands.show)
app.command()(job_commands.watch)
# A message is text: one that starts with '-' is not an option of `say`.
app.command(context_settings={"ignore_unknown_options": True})(answer_commands.say)
app.command()(answer_commands.diff)
app.command()(answer_commands.integrate)
app.command()(answer_commands.discard)
app.command()(attempt_commands.pick)
app.command()(job_commands.logs)
app.command()(job_commands.cancel)
app.command()(approval_commands.approvals)
app.command()(answer_commands.finish)
app.command()(approval_commands.approve)
app.command()(approval_commands.decline)
app.command()(approval_commands.withdraw)
app.command()(approval_commands.hold)
app.command()(ship_commands.report)
app.command()(ship_commands.push)
app.command()(mode_commands.mode)
app.command(name="discord")(discord_commands.discord_bot)
app.command()(doctor)
app.command()(patches)


@app.command()
def demo() -> None:
    """Run the demo offline: a sample repository, two jobs by the demo agent, reports, history."""
    from surfaces.cli.demo import run_demo

    raise typer.Exit(run(run_demo(settings())))
