"""The Discord bot under test: started against `FakeDiscord`, fed interactions, and driven.

`start_bot` logs a real `CodedeskBot` in to the fake (never to Discord), so its setup hook
runs as in production; `deliver` feeds one INTERACTION_CREATE through
`ConnectionState.parse_interaction_create`, the path discord.py takes for a gateway event,
and waits for its handler. `DiscordDriver` is the contract suite's driver for this surface.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import discord
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, OutcomeKind, Principal, SurfacePlace
from surfaces.discord.bot import CodedeskBot
from surfaces.discord.common.services import Services
from surfaces.discord.interactions.custom_ids import CardKey
from tests.surfaces.fake_discord import (
    BOT_ID,
    GUILD_ID,
    OWNER_ID,
    OWNER_ROLE_ID,
    STRANGER_ID,
    DiscordApi,
    FakeDiscord,
    Sent,
    custom_ids,
    enabled,
    guild_payload,
    install,
)

ANSWERED_WORDS = frozenset({"approved", "declined", "expired", "cancelled"})
"""The first word of a closed card's footer when an answer, an expiry or a cancel closed it."""

__all__ = [
    "BOT_ID",
    "GUILD_ID",
    "OWNER_ID",
    "OWNER_ROLE_ID",
    "STRANGER_ID",
    "DiscordDriver",
    "FakeDiscord",
    "Sent",
    "allowed_mentions_everywhere",
    "custom_ids",
    "deliver",
    "discord_driver",
    "discord_settings",
    "enabled",
    "start_bot",
]


async def deliver(client: discord.Client, payload: dict[str, Any]) -> None:
    """Feed one INTERACTION_CREATE to the client and wait until its handler has finished."""
    before = asyncio.all_tasks()
    client._connection.parse_interaction_create(payload)  # type: ignore[arg-type]
    started = asyncio.all_tasks() - before
    await asyncio.gather(*started)


async def start_bot(
    fake: DiscordApi,
    settings: DeskSettings,
    temporal: Client,
    *,
    queue: str = "",
    host_activities: bool = False,
    sync: bool = False,
) -> CodedeskBot:
    """A bot logged in to the fake (never to Discord), here or over a socket: setup_hook has run."""
    services = Services(settings, temporal, queue) if queue else Services(settings, temporal)
    bot = CodedeskBot(services, sync=sync, host_activities=host_activities)
    await bot._async_setup_hook()
    install(bot, fake)
    await bot.login("fake-token")
    guild = guild_payload()
    bot._connection._add_guild_from_data(guild)  # type: ignore[arg-type]
    return bot


def discord_settings(settings: DeskSettings, **more: Any) -> DeskSettings:
    """`settings` with the bot's owners (user OWNER_ID, role OWNER_ROLE_ID) and a quick pace."""
    return settings.model_copy(
        update={
            "discord_owner_ids": [str(OWNER_ID)],
            "discord_owner_role_ids": [str(OWNER_ROLE_ID)],
            "discord_guild_ids": [str(GUILD_ID)],
            "discord_progress_interval": timedelta(seconds=0.2),
            **more,
        }
    )


def allowed_mentions_everywhere(fake: FakeDiscord) -> None:
    """Every message the bot sent or edited turned mentions off."""
    bodies = fake.message_bodies()
    assert bodies
    for body in bodies:
        assert body.get("allowed_mentions", {}).get("parse") == [], body
        assert not body["allowed_mentions"].get("users")
        assert not body["allowed_mentions"].get("roles")


class DiscordDriver:
    """The contract suite's driver for Discord: cards in a fake Discord, presses as people do.

    A principal `discord:<id>` presses as that Discord user; any other principal presses as
    a user who is nobody's owner (`STRANGER_ID`), so the approval records `discord:666`.
    """

    def __init__(self, fake: FakeDiscord, bot: CodedeskBot, queue: str, channel: int) -> None:
        self.fake, self.bot, self.queue, self.channel = fake, bot, queue, channel
        self.owner = Principal(id=f"discord:{OWNER_ID}")
        self.stranger = Principal(id=f"discord:{STRANGER_ID}")

    def place(self) -> SurfacePlace | None:
        return SurfacePlace(queue=self.queue, channel=str(self.channel))

    @staticmethod
    def principal_of(who: Principal) -> Principal:
        """The principal a press by `who` reaches the approval as."""
        user = who.id.removeprefix("discord:") if who.id.startswith("discord:") else ""
        return Principal(id=f"discord:{user if user.isdigit() else STRANGER_ID}")

    async def shown(self, approval_id: str) -> bool:
        card = self.fake.card(approval_id)
        return card is not None and enabled(card)

    async def press(self, approval_id: str, decision: Decision, who: Principal) -> str:
        card = self.fake.card(approval_id)
        assert card is not None, f"no card of {approval_id} was posted"
        user = int(self.principal_of(who).id.removeprefix("discord:"))
        custom_id = CardKey.of(approval_id).custom_id(decision)
        payload = self.fake.press(int(card["id"]), custom_id, user)
        await deliver(self.bot, payload)
        told = self.fake.told(payload["token"])
        return "counted" if told in (["Approved."], ["Declined."]) else " ".join(told)

    async def closed_as(self, approval_id: str) -> str | None:
        card = self.fake.card(approval_id)
        if card is None or enabled(card) or not card["embeds"]:
            return None
        footer = card["embeds"][0].get("footer", {}).get("text", "")
        word = footer.split(" ")[0].rstrip(":;").lower()
        # An answered, expired or cancelled card's footer starts with its outcome; a withdrawn
        # one's is the withdrawal's reason alone (pi-roundtable 0.15), read as withdrawn.
        return word if word in ANSWERED_WORDS else OutcomeKind.WITHDRAWN.value


@asynccontextmanager
async def discord_driver(
    temporal: Client, settings: DeskSettings, queue: str
) -> AsyncIterator[DiscordDriver]:
    """A bot hosting its surface on `queue`, logged in to a fresh fake, and its driver."""
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, settings, temporal, queue=queue, host_activities=True)
    try:
        yield DiscordDriver(fake, bot, queue, channel)
    finally:
        await bot.close()
