"""/task refuses at once, privately, where the bot could not follow the job: before it defers,
before it asks the desk anything (the Temporal client here must never be used)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from unittest.mock import MagicMock

import discord
import pytest
from temporalio.client import Client

from desk.config.settings import load_settings
from tests.surfaces.discord_driver import (
    OWNER_ID,
    FakeDiscord,
    deliver,
    discord_settings,
    start_bot,
)
from tests.surfaces.fake_discord import ALL_PERMISSIONS


def without(*names: str) -> int:
    permissions = discord.Permissions(ALL_PERMISSIONS)
    permissions.update(**dict.fromkeys(names, False))
    return permissions.value


def locked_thread(fake: FakeDiscord) -> int:
    thread = fake.thread(fake.text_channel(), owner=OWNER_ID)
    fake.channels[thread]["thread_metadata"]["locked"] = True
    return thread


PLACES: dict[str, tuple[Callable[[FakeDiscord], int], int, int, str]] = {
    "a channel it may not post in": (
        FakeDiscord.text_channel,
        without("administrator", "send_messages"),
        0,
        "it lacks Send Messages",
    ),
    "a thread it may not post in": (
        lambda fake: fake.thread(fake.text_channel(), owner=OWNER_ID),
        without("administrator", "send_messages_in_threads"),
        0,
        "it lacks Send Messages in Threads",
    ),
    "a locked thread": (
        locked_thread,
        without("administrator", "manage_threads"),
        0,
        "This thread is locked",
    ),
    "a DM it is not part of": (
        lambda fake: fake.dm(OWNER_ID),
        ALL_PERMISSIONS,
        2,  # a user-installed app's command in someone else's DM
        "a conversation it is not part of",
    ),
}


@pytest.mark.parametrize("where", PLACES)
async def test_task_where_the_bot_cannot_follow_the_job_is_refused_at_once(
    where: str, tmp_path: Path
) -> None:
    place, permissions, context, words = PLACES[where]
    temporal = MagicMock(spec=Client)
    settings = discord_settings(load_settings(home=str(tmp_path)))
    fake = FakeDiscord()
    channel = place(fake)
    bot = await start_bot(fake, settings, temporal)
    before = len(fake.sent)
    command = fake.command(
        "task", OWNER_ID, channel, repo="acme/api", task="fix it", permissions=permissions
    )
    if context:
        command["context"] = context
    await deliver(bot, command)
    await bot.close()
    [refusal] = fake.sent[before:]
    assert refusal.json is not None
    assert (refusal.json["type"], refusal.json["data"]["flags"]) == (4, 64), refusal.json
    assert words in refusal.json["data"]["content"], refusal.json
    assert temporal.mock_calls == []
