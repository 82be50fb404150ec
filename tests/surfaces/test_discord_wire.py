"""The fake Discord across a socket answers a bot's HTTP layer as the in-process fake does."""

from __future__ import annotations

import asyncio

import discord
import pytest
from discord.http import Route

from tests.helpers.waiting import awaited
from tests.surfaces.discord_wire import DiscordServer, RemoteDiscord
from tests.surfaces.fake_discord import FakeDiscord, install


async def test_a_request_over_the_wire_is_answered_and_refused_as_discord_would() -> None:
    fake = FakeDiscord()
    channel = fake.text_channel()
    client = discord.Client(intents=discord.Intents.none())
    await client._async_setup_hook()  # the client's loop, as at login
    async with DiscordServer(fake) as server:
        remote = await RemoteDiscord.connect(server.address)
        install(client, remote)
        posted = await client.http.request(
            Route("POST", "/channels/{channel_id}/messages", channel_id=channel),
            json={"content": "hello"},
        )
        assert fake.in_channel(channel) == [posted]
        with pytest.raises(discord.NotFound) as unknown:
            await client.http.request(Route("GET", "/channels/{channel_id}", channel_id=1))
        assert unknown.value.code == 10003
        fake.failures.append(("POST", rf"/channels/{channel}/messages", 503, 0))
        with pytest.raises(discord.DiscordServerError):
            await client.http.request(
                Route("POST", "/channels/{channel_id}/messages", channel_id=channel),
                json={"content": "again"},
            )
        assert [m["content"] for m in fake.in_channel(channel)] == ["hello"]
        await remote.close()
    await client.close()


async def test_a_withheld_request_is_done_in_discord_or_not_and_never_heard_by_the_bot() -> None:
    fake = FakeDiscord()
    channel = fake.text_channel()
    async with DiscordServer(fake) as server:
        remote = await RemoteDiscord.connect(server.address)
        done = server.withhold(lambda method, path, body: body.get("content") == "kept")
        asking = asyncio.create_task(
            remote.ask("POST", f"/channels/{channel}/messages", {"content": "kept"}, None)
        )
        await awaited(done.wait(), "the withheld request to reach the fake")
        assert [m["content"] for m in fake.in_channel(channel)] == ["kept"]
        later = await remote.ask("POST", f"/channels/{channel}/messages", {"content": "x"}, None)
        assert later["content"] == "x"
        assert not asking.done(), "the bot heard the answer it was never to hear"
        asking.cancel()
        lost = server.withhold(lambda method, path, body: True, done_in_discord=False)
        never = asyncio.create_task(
            remote.ask("POST", f"/channels/{channel}/messages", {"content": "lost"}, None)
        )
        await awaited(lost.wait(), "the lost request to reach the socket")
        assert [m["content"] for m in fake.in_channel(channel)] == ["kept", "x"]
        never.cancel()
        await remote.close()
