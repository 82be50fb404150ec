"""The stand-in refuses what Discord refuses: over-limit bodies, a missing token, a spent rate
limit bucket, a late or repeated interaction callback, a gateway IDENTIFY with a bad token or
with the Message Content intent the portal has off; it sends a message's content only to a bot
with that intent, and takes reactions.
(The bot's own tests assert the stand-in refused nothing; these show that it would have.)"""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from tests.protocol.stand_in.gateway import GUILD_MESSAGES, MESSAGE_CONTENT
from tests.protocol.stand_in.server import TOKEN, DiscordStandIn
from tests.surfaces.fake_discord import OWNER_ID, FakeDiscord

BOT = {"Authorization": f"Bot {TOKEN}"}
GUILDS = 1 << 0
BUTTON = {"type": 2, "style": 1, "label": "go", "custom_id": "x"}


async def ask(
    stand_in: DiscordStandIn, method: str, path: str, body: Any = None, **headers: str
) -> tuple[int, dict[str, Any], dict[str, str]]:
    async with (
        aiohttp.ClientSession() as session,
        session.request(
            method, stand_in.api_base + path, json=body, headers=headers or BOT
        ) as response,
    ):
        answer = await response.json() if response.status != 204 else {}
        return response.status, answer, dict(response.headers)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"content": "x" * 2001}, 50035),
        ({"embeds": [{"description": "x" * 4097}]}, 50035),
        ({"embeds": [{"description": "x" * 4000}, {"description": "x" * 2001}]}, 50035),
        ({"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]}, 50035),
        ({"components": [{"type": 1, "components": [BUTTON]}] * 6}, 50035),
        ({"components": [{"type": 1, "components": [BUTTON, BUTTON]}]}, 50035),
        ({"content": ""}, 50006),
    ],
)
async def test_a_message_over_discords_limits_is_refused(body: dict[str, Any], code: int) -> None:
    fake = FakeDiscord()
    channel = fake.text_channel()
    async with DiscordStandIn(fake) as stand_in:
        status, answer, _ = await ask(stand_in, "POST", f"/channels/{channel}/messages", body)
        assert (status, answer["code"]) == (400, code), answer
        status, _, _ = await ask(
            stand_in, "POST", f"/channels/{channel}/messages", {"content": "x" * 2000}
        )
        assert status == 200
    assert [m["content"] for m in fake.in_channel(channel)] == ["x" * 2000]


async def test_no_token_no_answer_and_a_spent_bucket_is_a_429() -> None:
    fake = FakeDiscord()
    channel = fake.text_channel()
    async with DiscordStandIn(fake) as stand_in:
        status, _, _ = await ask(stand_in, "GET", "/users/@me", Authorization="Bot wrong")
        assert status == 401
        stand_in.rest.window = 3600.0  # the bucket cannot refill during the test
        path = f"/channels/{channel}/messages"
        for left in range(4, -1, -1):
            status, _, headers = await ask(stand_in, "POST", path, {"content": "hi"})
            assert (status, headers["X-RateLimit-Remaining"]) == (200, str(left))
        status, answer, headers = await ask(stand_in, "POST", path, {"content": "hi"})
        assert status == 429 and answer["retry_after"] > 0 and headers["Via"]
        assert len(fake.in_channel(channel)) == 5


async def test_an_interaction_is_acknowledged_once_and_only_while_it_is_fresh() -> None:
    fake = FakeDiscord()
    channel = fake.text_channel()
    payload = fake.command("repos", OWNER_ID, channel)
    callback = f"/interactions/{payload['id']}/{payload['token']}/callback"
    defer = {"type": 5}
    async with DiscordStandIn(fake) as stand_in:
        status, answer, _ = await ask(stand_in, "POST", callback, defer)
        assert (status, answer["code"]) == (404, 10062)  # never delivered: unknown
        stand_in.rest.interaction_created(payload["token"])
        status, _, _ = await ask(stand_in, "POST", callback, defer)
        assert status == 200
        status, answer, _ = await ask(stand_in, "POST", callback, defer)
        assert (status, answer["code"]) == (400, 40060)


async def test_the_gateway_closes_a_bad_token_with_4004() -> None:
    async with (
        DiscordStandIn(FakeDiscord()) as stand_in,
        aiohttp.ClientSession() as session,
        session.ws_connect(stand_in.gateway.url) as socket,
    ):
        hello = await socket.receive_json()
        assert hello["op"] == 10
        await socket.send_json({"op": 2, "d": {"token": "wrong"}})
        closed = await socket.receive()
        assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 4004
        assert stand_in.gateway.identified == 0


async def identified(socket: aiohttp.ClientWebSocketResponse, intents: int) -> None:
    """IDENTIFY with `intents`, and read up to the guild (READY, GUILD_CREATE)."""
    assert (await socket.receive_json())["op"] == 10
    await socket.send_json({"op": 2, "d": {"token": TOKEN, "intents": intents}})
    while (await socket.receive_json()).get("t") != "GUILD_CREATE":
        pass


@pytest.mark.parametrize(
    ("intents", "content"),
    [(GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT, "hello agent"), (GUILDS | GUILD_MESSAGES, "")],
)
async def test_a_persons_message_comes_by_the_bots_intents(intents: int, content: str) -> None:
    """Discord sends a guild's messages to a bot that asked for them, their content only to a
    bot with the Message Content intent."""
    fake = FakeDiscord()
    thread = fake.thread(fake.text_channel(), owner=OWNER_ID)
    async with (
        DiscordStandIn(fake) as stand_in,
        aiohttp.ClientSession() as session,
        session.ws_connect(stand_in.gateway.url) as socket,
    ):
        await identified(socket, intents)
        ident = await stand_in.gateway.said(thread, OWNER_ID, "hello agent")
        event = await socket.receive_json()
        assert (event["t"], event["d"]["id"], event["d"]["content"]) == (
            "MESSAGE_CREATE",
            str(ident),
            content,
        )
        assert event["d"]["author"]["id"] == str(OWNER_ID) and "member" in event["d"]


async def test_a_bot_asking_for_message_content_the_portal_has_off_is_closed_with_4014() -> None:
    async with (
        DiscordStandIn(FakeDiscord(message_content=False)) as stand_in,
        aiohttp.ClientSession() as session,
        session.ws_connect(stand_in.gateway.url) as socket,
    ):
        assert (await socket.receive_json())["op"] == 10
        intents = GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT
        await socket.send_json({"op": 2, "d": {"token": TOKEN, "intents": intents}})
        closed = await socket.receive()
        assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 4014
        assert stand_in.gateway.identified == 0


async def test_a_reaction_is_put_once_on_a_message_of_the_channel() -> None:
    fake = FakeDiscord()
    channel = fake.text_channel()
    ident = fake.said(channel, OWNER_ID, "hi")
    reaction = f"/channels/{channel}/messages/{ident}/reactions/%E2%9C%85/@me"
    async with DiscordStandIn(fake) as stand_in:
        for _ in range(2):
            status, _, _ = await ask(stand_in, "PUT", reaction)
            assert status == 204
        status, answer, _ = await ask(stand_in, "PUT", reaction.replace(str(ident), "1234"))
        assert (status, answer["code"]) == (404, 10008)
    assert fake.reactions(ident) == ["✅"]
