"""How every command runs: settings, the client, async bodies, and errors as one-line reasons."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import typer
from rich.console import Console

from desk.errors import DeskError
from desk.settings import DeskSettings, load_settings
from surfaces.desk_client import DeskClient
from workers.client import connect

T = TypeVar("T")

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print a one-line reason to stderr and return the Exit to raise."""
    err.print(f"[bold red]error:[/] {message}", markup=True)
    return typer.Exit(code)


def refuse_inside_a_job(command: str) -> None:
    """Answering or shipping is a person's act: never from inside a job (an agent's shell)."""
    if os.environ.get("CODEDESK_JOB"):
        raise fail(
            f"`codedesk {command}` does not run inside a codedesk job (CODEDESK_JOB is set): an "
            "agent may ask for a hold, never answer one or ship. Run it from your own shell."
        )


def run(body: Coroutine[Any, Any, T]) -> T:
    """Run an async command body; a DeskError becomes a one-line reason and exit code 1."""
    try:
        return asyncio.run(body)
    except DeskError as error:
        raise fail(str(error)) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


def settings(**overrides: Any) -> DeskSettings:
    try:
        return load_settings(**overrides)
    except DeskError as error:
        raise fail(str(error)) from None


def with_desk(body: Callable[[DeskClient], Awaitable[T]], **overrides: Any) -> T:
    """Connect to the desk's server and run `body` with a DeskClient."""
    config = settings(**overrides)

    async def connected() -> T:
        client = await connect(config)
        return await body(DeskClient(client, config))

    return run(connected())
