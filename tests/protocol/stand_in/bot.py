"""`codedesk discord`, the real bot process, logged in to a `DiscordStandIn`.

The process is the console script's own (launch.py points discord.py at the stand-in and
runs `codedesk discord --sync`), with this desk's settings, the stand-in's
token and the fake guild's owners. It is stopped as a person stops it (SIGINT, as Ctrl-C)
and must exit 0; one the test left running is SIGKILLed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path

from desk.config.settings import DeskSettings
from tests.helpers.cli_helpers import settings_env
from tests.helpers.waiting import awaited
from tests.protocol.stand_in.server import TOKEN, DiscordStandIn
from tests.surfaces.fake_discord import GUILD_ID, OWNER_ID, OWNER_ROLE_ID

ROOT = Path(__file__).parents[3]


def bot_env(settings: DeskSettings, **extra: str) -> dict[str, str]:
    """The environment of a bot of this desk, the stand-in's token and the guild's owners;
    its jobs run the desk's agent unless `extra` says otherwise."""
    extra = {"CODEDESK_AGENT_COMMAND": settings.agent_command, **extra}
    return settings_env(
        settings,
        CODEDESK_DISCORD_TOKEN=TOKEN,
        CODEDESK_DISCORD_GUILD_IDS=str(GUILD_ID),
        CODEDESK_DISCORD_OWNER_IDS=str(OWNER_ID),
        CODEDESK_DISCORD_OWNER_ROLE_IDS=str(OWNER_ROLE_ID),
        CODEDESK_DISCORD_PROGRESS_INTERVAL="0.2s",
        **extra,
    )


@asynccontextmanager
async def codedesk_discord(
    env: dict[str, str], discord: DiscordStandIn, log: Path, sync: str = "--sync"
) -> AsyncIterator[asyncio.subprocess.Process]:
    """The bot process, once its gateway session is live; `sync` is how it registers its
    commands (`--sync` in the guild, `--sync-global`)."""
    with log.open("wb") as output:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.protocol.stand_in.launch",
            discord.api_base,
            discord.gateway.url,
            "discord",
            sync,
            env=env,
            cwd=ROOT,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            start_new_session=True,
        )
    try:
        ready = asyncio.create_task(discord.gateway.ready.wait())
        ended = asyncio.create_task(process.wait())
        await awaited(
            asyncio.wait({ready, ended}, return_when=asyncio.FIRST_COMPLETED),
            "the bot to identify on the stand-in's gateway",
        )
        ended.cancel()
        assert ready.done(), f"the bot exited {process.returncode}:\n{log.read_text()}"
        yield process
        if process.returncode is None:
            process.send_signal(signal.SIGINT)
        code = await awaited(process.wait(), "the bot to stop on Ctrl-C")
        assert code == 0, f"the bot exited {code}; its log:\n{log.read_text()}"
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
