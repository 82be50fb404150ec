"""`codedesk discord`: run the Discord bot (slash commands, approval cards, job threads)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import typer

from desk.errors import DeskError
from surfaces.cli.common.runner import fail, run, settings
from surfaces.render.terminal.console import err, out

if TYPE_CHECKING:
    import asyncio

    from temporalio.client import Client

    from desk.config.settings import DeskSettings


def discord_bot(
    sync: bool = typer.Option(
        False, "--sync", help="First register the slash commands in CODEDESK_DISCORD_GUILD_IDS."
    ),
    sync_global: bool = typer.Option(
        False,
        "--sync-global",
        help="First register the slash commands globally: in every server and in DMs with the bot.",
    ),
) -> None:
    """Run the Discord bot and its surface worker; the token comes from CODEDESK_DISCORD_TOKEN."""
    import logging

    import discord

    from surfaces.discord.bot import NO_TOKEN, serve_bot
    from workers.hosting import stop_on_signals
    from workers.log_scrub import scrub_log_output
    from workers.temporal.client import connect

    config = settings()
    if not config.discord_token.get_secret_value():
        raise fail(NO_TOKEN, code=2)
    discord.utils.setup_logging(level=logging.INFO)
    scrub_log_output()

    async def body() -> None:
        client = await connect(config)
        stop = stop_on_signals()
        out.print("Discord bot starting. Press Ctrl-C to stop.")
        await serve_bot(client, config, stop, sync=sync, sync_global=sync_global)

    run(body())


def bot_beside(config: DeskSettings) -> Callable[[Client, asyncio.Event], Awaitable[None]]:
    """The bot as `codedesk up` runs it: beside the worker; if it stops, the desk runs on."""

    async def bot(client: Client, stop: asyncio.Event) -> None:
        from surfaces.discord.bot import serve_bot

        out.print("Discord bot: starting (CODEDESK_DISCORD_TOKEN is set).")
        try:
            await serve_bot(client, config, stop)
        except DeskError as error:
            err.print(f"The Discord bot stopped: {error}", markup=False)

    return bot
