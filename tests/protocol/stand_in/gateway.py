"""Discord's gateway over a websocket on 127.0.0.1: HELLO, IDENTIFY, heartbeats, RESUME.

discord.py's own `DiscordWebSocket` connects here once `DiscordWebSocket.DEFAULT_GATEWAY`
points here. IDENTIFY with the bot's token starts a session (READY, then GUILD_CREATE from
the model's guild); another token is closed with 4004, as Discord does. Every dispatch is
numbered and kept, so a bot that comes back with RESUME gets what it missed, then RESUMED;
`drop(code)` closes the socket as Discord's gateway does now and then (discord.py resumes
after 4000-4009 and 1001), and `drop(code, forget=True)` also ends the session, so the RESUME
is answered with INVALID_SESSION and the bot identifies again. Frames are zlib-stream
compressed when the bot asks for it, as discord.py does by default.

A person's message (`said`) is a MESSAGE_CREATE, sent as Discord sends it by the intents the
bot identified with: none in a guild without GUILD_MESSAGES (in a DM without DIRECT_MESSAGES),
and its content, embeds and attachments empty in a guild without MESSAGE_CONTENT. A bot that
asks for MESSAGE_CONTENT while the Developer Portal has it off is closed with 4014.
"""

from __future__ import annotations

import asyncio
import json
import uuid
import zlib
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.surfaces.fake_discord import BOT_ID, BOT_USER, GUILD_ID, FakeDiscord, guild_payload

DISPATCH, HEARTBEAT, IDENTIFY, RESUME, RECONNECT = 0, 1, 2, 6, 7
INVALID_SESSION, HELLO, HEARTBEAT_ACK = 9, 10, 11
AUTHENTICATION_FAILED, DISALLOWED_INTENTS = 4004, 4014
GUILD_MESSAGES, DIRECT_MESSAGES, MESSAGE_CONTENT = 1 << 9, 1 << 12, 1 << 15


@dataclass
class Session:
    """One gateway session: its numbered dispatches, replayed on RESUME from a sequence."""

    id: str
    dispatched: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Connection:
    socket: web.WebSocketResponse
    compressor: Any = None
    session: Session | None = None

    async def send(self, payload: dict[str, Any]) -> None:
        text = json.dumps(payload)
        if self.compressor is None:
            await self.socket.send_str(text)
        else:
            data = self.compressor.compress(text.encode())
            await self.socket.send_bytes(data + self.compressor.flush(zlib.Z_SYNC_FLUSH))


@dataclass
class Gateway:
    """The gateway half of the stand-in (see the module docstring)."""

    fake: FakeDiscord
    token: str
    url: str = ""
    heartbeat_interval: int = 41_250
    session: Session | None = None
    connection: Connection | None = None
    identified: int = 0
    resumed: int = 0
    intents: int = 0
    """The intents the bot identified with."""
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once a session is live (READY or RESUMED sent); cleared by a drop."""

    def route(self, app: web.Application) -> None:
        app.router.add_get("/gateway", self._connect)

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send an event in the session, now or, while the bot is away, on its RESUME."""
        assert self.session is not None, "no bot has identified"
        payload = {"op": DISPATCH, "t": event, "s": len(self.session.dispatched) + 1, "d": data}
        self.session.dispatched.append(payload)
        if self.connection is not None and self.connection.session is self.session:
            await self.connection.send(payload)

    async def drop(self, code: int = 4000, *, forget: bool = False) -> None:
        """Close the bot's socket with `code`; `forget` also ends the session."""
        self.ready.clear()
        connection, self.connection = self.connection, None
        if forget:
            self.session = None
        if connection is not None:
            await connection.socket.close(code=code, message=b"dropped by the stand-in")

    async def _connect(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(autoping=True)
        await socket.prepare(request)
        compressor = zlib.compressobj() if request.query.get("compress") == "zlib-stream" else None
        connection = Connection(socket, compressor)
        self.connection = connection
        await connection.send({"op": HELLO, "d": {"heartbeat_interval": self.heartbeat_interval}})
        async for message in socket:
            if message.type is not WSMsgType.TEXT:
                continue
            await self._receive(connection, json.loads(message.data))
        if self.connection is connection:
            self.connection = None
            self.ready.clear()
        return socket

    async def _receive(self, connection: Connection, payload: dict[str, Any]) -> None:
        op, data = payload.get("op"), payload.get("d") or {}
        if op == HEARTBEAT:
            await connection.send({"op": HEARTBEAT_ACK, "d": None})
        elif op in (IDENTIFY, RESUME) and data.get("token") != self.token:
            await connection.socket.close(code=AUTHENTICATION_FAILED, message=b"Bad token.")
        elif (
            op == IDENTIFY
            and data.get("intents", 0) & MESSAGE_CONTENT
            and not (self.fake.message_content)
        ):
            await connection.socket.close(code=DISALLOWED_INTENTS, message=b"Disallowed intent(s).")
        elif op == IDENTIFY:
            self.intents = int(data.get("intents", 0))
            await self._identify(connection)
        elif op == RESUME:
            await self._resume(connection, data)

    async def _identify(self, connection: Connection) -> None:
        self.identified += 1
        self.session = connection.session = Session(uuid.uuid4().hex)
        ready = {
            "v": 10,
            "user": BOT_USER,
            "guilds": [{"id": str(GUILD_ID), "unavailable": True}],
            "session_id": self.session.id,
            "resume_gateway_url": self.url,
            "application": {"id": str(BOT_ID), "flags": 0},
            "private_channels": [],
            "relationships": [],
        }
        await self.dispatch("READY", ready)
        await self.dispatch("GUILD_CREATE", self.guild())
        self.ready.set()

    async def _resume(self, connection: Connection, data: dict[str, Any]) -> None:
        session = self.session
        if session is None or data.get("session_id") != session.id:
            await connection.send({"op": INVALID_SESSION, "d": False})
            return
        self.resumed += 1
        connection.session = session
        for missed in session.dispatched[int(data.get("seq") or 0) :]:
            await connection.send(missed)
        await self.dispatch("RESUMED", {})
        self.ready.set()

    async def said(
        self, channel: int, user: int, content: str, *, bot: bool = False, kind: int = 0
    ) -> int:
        """A person (or a bot) writes in `channel`: kept, and sent to the bot as Discord would."""
        ident = self.fake.said(channel, user, content, bot=bot, kind=kind)
        data = {k: v for k, v in self.fake.messages[ident].items() if not k.startswith("_")}
        place = self.fake.channels[channel]
        if place["type"] == 1:
            if self.intents & DIRECT_MESSAGES:
                await self.dispatch("MESSAGE_CREATE", data)
            return ident
        if not self.intents & GUILD_MESSAGES:
            return ident
        if not self.intents & MESSAGE_CONTENT:
            data.update(content="", embeds=[], attachments=[], components=[])
        author = data["author"]
        data.update(guild_id=str(GUILD_ID), member=_member(user, self.fake.roles.get(user, [])))
        data["author"] = author
        await self.dispatch("MESSAGE_CREATE", data)
        return ident

    def guild(self) -> dict[str, Any]:
        """The guild as GUILD_CREATE carries it: the model's channels and active threads."""
        placed = [c for c in self.fake.channels.values() if c.get("guild_id") == str(GUILD_ID)]
        return guild_payload(placed, self.fake.bot_permissions)


def _member(user: int, roles: list[int]) -> dict[str, Any]:
    """The partial member a guild's MESSAGE_CREATE carries beside its author."""
    return {
        "roles": [str(role) for role in roles],
        "joined_at": "2024-01-01T00:00:00+00:00",
        "deaf": False,
        "mute": False,
        "flags": 0,
    }
