"""The real bot process against Discord's protocol: commands sync, interactions are answered
over HTTP within Discord's limits, and a 429 or a dropped gateway loses nothing."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from desk.config.settings import DeskSettings
from surfaces.clients.desk_client import DeskClient
from tests.helpers.waiting import awaited, until
from tests.protocol.stand_in.bot import bot_env, codedesk_discord
from tests.protocol.stand_in.rest import INTERACTION_DEADLINE, UNKNOWN_INTERACTION, Refusal
from tests.protocol.stand_in.server import DiscordStandIn
from tests.surfaces.fake_discord import BOT_ID, GUILD_ID, OWNER_ID, FakeDiscord


def answered(fake: FakeDiscord, token: str, words: str) -> bool:
    return any(words in told for told in fake.told(token))


async def test_commands_sync_and_answers_survive_a_429_and_gateway_drops(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord()
    channel = fake.text_channel()
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(bot_env(settings), discord, tmp_path / "bot.log"),
    ):
        await until(lambda: fake.synced.get(GUILD_ID), "the commands to be synced")
        assert {"task", "repos", "jobs", "job"} <= {c["name"] for c in fake.synced[GUILD_ID]}

        discord.rest.throttle("POST", rf"/webhooks/{BOT_ID}/[^/]+")
        token = await discord.interact(fake.command("repos", OWNER_ID, channel))
        await until(lambda: answered(fake, token, "acme/api"), "/repos answered after a 429")
        assert [r.path for r in discord.rest.refused if r.status == 429] == [
            f"/webhooks/{BOT_ID}/{token}"
        ]

        await discord.gateway.drop(4000)
        token = await discord.interact(fake.command("repos", OWNER_ID, channel))
        await until(lambda: answered(fake, token, "acme/api"), "/repos sent while the bot was away")
        assert (discord.gateway.identified, discord.gateway.resumed) == (1, 1)

        await discord.gateway.drop(4009, forget=True)
        await awaited(discord.gateway.ready.wait(), "the bot to identify again")
        token = await discord.interact(fake.command("repos", OWNER_ID, channel))
        await until(lambda: answered(fake, token, "acme/api"), "/repos in the new session")
        assert discord.gateway.identified == 2
        assert [r for r in discord.rest.refused if r.status != 429] == []


async def test_an_interaction_the_bot_answers_after_3_s_is_refused_as_unknown(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    fake = FakeDiscord()
    channel = fake.text_channel()
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(bot_env(settings), discord, tmp_path / "bot.log") as bot,
    ):
        bot.send_signal(signal.SIGSTOP)  # the bot's machine stalls as the command arrives
        try:
            late = await discord.interact(fake.command("repos", OWNER_ID, channel))
            await asyncio.sleep(INTERACTION_DEADLINE + 0.5)  # past Discord's deadline
        finally:
            bot.send_signal(signal.SIGCONT)
        callback = f"/interactions/{late.removeprefix('token-')}/{late}/callback"
        await until(
            lambda: Refusal("POST", callback, 404, UNKNOWN_INTERACTION) in discord.rest.refused,
            "Discord to refuse the late answer",
        )
        token = await discord.interact(fake.command("repos", OWNER_ID, channel))
        await until(lambda: answered(fake, token, "shelf"), "the next command to be answered")
        assert fake.told(late) == []
