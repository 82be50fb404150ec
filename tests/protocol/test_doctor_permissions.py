"""`codedesk doctor` names the Discord permissions the bot lacks in a configured guild (issue
30 part 2), and tells the owner to turn on the Message Content intent while it is off (issue
45), asked of Discord's REST API (the protocol stand-in) with the bot's token."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import discord

from desk.config.settings import DeskSettings
from tests.helpers.waiting import awaited
from tests.protocol.stand_in.bot import ROOT, bot_env
from tests.protocol.stand_in.server import DiscordStandIn
from tests.surfaces.fake_discord import ALL_PERMISSIONS, GUILD_ID, FakeDiscord


async def doctor_says(env: dict[str, str], discord_: DiscordStandIn) -> dict[str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.protocol.stand_in.launch",
        discord_.api_base,
        discord_.gateway.url,
        "doctor",
        "--json",
        env=env,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await awaited(process.communicate(), "codedesk doctor")
    checks = json.loads(out or b"[]")
    assert checks, err.decode()
    return {check["name"]: f"{check['status']} {check['detail']}" for check in checks}


async def test_doctor_names_the_thread_permissions_the_bot_lacks(
    settings: DeskSettings, tmp_path: Path
) -> None:
    lacking = discord.Permissions(ALL_PERMISSIONS)
    lacking.update(administrator=False, manage_threads=False, send_messages_in_threads=False)
    fake = FakeDiscord(bot_permissions=lacking.value)
    async with DiscordStandIn(fake) as stand_in:
        said = await doctor_says(bot_env(settings), stand_in)
        guild = said[f"discord guild {GUILD_ID}"]
        assert guild.startswith("warn the bot lacks Send Messages in Threads, Manage Threads")

        fake.bot_permissions = lacking.value | discord.Permissions(manage_threads=True).value
        fake.bot_permissions |= discord.Permissions(send_messages_in_threads=True).value
        said = await doctor_says(bot_env(settings), stand_in)
        assert said[f"discord guild {GUILD_ID}"].startswith("ok "), said


async def test_doctor_tells_the_owner_to_turn_the_message_content_intent_on(
    settings: DeskSettings, tmp_path: Path
) -> None:
    fake = FakeDiscord(message_content=False)
    async with DiscordStandIn(fake) as stand_in:
        said = await doctor_says(bot_env(settings), stand_in)
        intent = said["discord message content"]
        assert intent.startswith("warn the Message Content intent is off: enable it in the "), said
        assert "Privileged Gateway Intents" in intent

        fake.message_content = True  # the owner flips the switch in the portal
        said = await doctor_says(bot_env(settings), stand_in)
        assert said["discord message content"].startswith("ok the intent is on"), said
