"""How every command runs: settings, the client, async bodies, and errors as one-line reasons.

Nothing heavy is imported here at module level: every command module imports this one, and
`codedesk --help` or an argument error must not pay for rich, pydantic or the Temporal SDK
(nor `codedesk jobs` for rich or pydantic).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from desk.errors import DeskError
from surfaces.render.terminal.console import err

if TYPE_CHECKING:
    from desk.config.reach import Reach
    from desk.config.settings import DeskSettings
    from surfaces.clients.desk_client import DeskClient
    from surfaces.clients.listings.page import Page

T = TypeVar("T")


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print a one-line reason to stderr and return the Exit to raise."""
    err.print(f"[bold red]error:[/] {message}", markup=True)
    return typer.Exit(code)


def refuse_inside_a_job(command: str) -> None:
    """Answering, shipping and hosting are a person's acts: never from inside a job (an
    agent's shell). Hosting, since a worker's start sets the desk's host policy."""
    if os.environ.get("CODEDESK_JOB"):
        raise fail(
            f"`codedesk {command}` does not run inside a codedesk job (CODEDESK_JOB is set): an "
            "agent may ask for a hold, never answer one or ship. Run it from your own shell."
        )


def more_line(page: Page[Any], noun: str, command: str) -> None:
    """Say on stderr how many entries a page left off, and how to see them (nothing if none).

    On stderr, so `--json` output stays one document a script can parse; plain text, so a
    listing needs no rich.
    """
    if page.more:
        typer.echo(
            f"… and {page.more} more {noun}{'' if page.more == 1 else 's'} "
            f"({len(page.items)} of {page.total} shown): "
            f"`codedesk {command} --limit {page.total}` shows them all.",
            err=True,
        )


def run(body: Coroutine[Any, Any, T]) -> T:
    """Run an async command body; a DeskError becomes a one-line reason and exit code 1."""
    import asyncio

    try:
        return asyncio.run(body)
    except DeskError as error:
        raise fail(str(error)) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


def reach() -> Reach:
    """The few settings a listing needs, read without pydantic when that is exact."""
    from desk.config.reach import read_reach

    warn_unknown_settings()
    try:
        return read_reach()
    except DeskError as error:
        raise fail(str(error)) from None


def settings(**overrides: Any) -> DeskSettings:
    from desk.config.settings import load_settings

    warn_unknown_settings()
    try:
        return load_settings(**overrides)
    except DeskError as error:
        raise fail(str(error)) from None


@functools.cache  # once a process: a command may read its settings more than once
def warn_unknown_settings() -> None:
    """Say on stderr which CODEDESK_* variables and codedesk.toml keys name no setting (the
    settings ignore them silently), each with the nearest setting's name."""
    from desk.config.basics.defaults import config_file
    from desk.config.basics.setting_names import unknown_settings

    for warning in unknown_settings(os.environ, config_file()):
        typer.echo(f"warning: {warning}", err=True)


def with_desk(body: Callable[[DeskClient], Awaitable[T]], **overrides: Any) -> T:
    """Connect to the desk's server and run `body` with a DeskClient."""
    from surfaces.clients.desk_client import DeskClient
    from workers.temporal.client import connect

    config = settings(**overrides)

    async def connected() -> T:
        client = await connect(config)
        return await body(DeskClient(client, config))

    return run(connected())
