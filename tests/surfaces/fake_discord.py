"""An offline Discord for the bot's tests: discord.py's own objects over a fake HTTP layer.

`FakeDiscord` keeps channels, threads and messages in memory and answers the REST calls the
bot makes, through discord.py's real `HTTPClient` (its `request` replaced) and its real
webhook adapter (interaction responses and follow-ups; its `request` replaced too). Every
request is recorded as `Sent`, so a test can read exactly what the bot sent. Interactions are
raw INTERACTION_CREATE payloads (`press`, `command`), fed to the client by
`tests.surfaces.discord_driver.deliver`. Nothing logs in to Discord: `login` is answered here.
A bot in another process reaches the same fake over a socket (tests/surfaces/discord_wire.py):
the HTTP layer only needs something that answers `ask` (`DiscordApi`).

This touches discord.py internals (pinned: discord.py==2.7.1 in pyproject.toml).
"""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, Protocol
from urllib.parse import unquote

import discord
from discord.http import HTTPClient, Route
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from desk.holds.approvals import Decision
from surfaces.discord.interactions.custom_ids import CardKey

BOT_ID = 900
GUILD_ID = 100
OWNER_ID = 1001
STRANGER_ID = 666
OWNER_ROLE_ID = 4242
BOT_ROLE_ID = 4343
ALL_PERMISSIONS = (1 << 50) - 1
"""What the bot may do where an interaction came from (`app_permissions`): everything."""
ADMINISTRATOR, MANAGE_THREADS = 1 << 3, 1 << 34
THREAD_TYPES = (10, 11, 12)
"""Discord's channel types of threads: announcement, public and private."""
MESSAGE_CONTENT_LIMITED = 1 << 19
"""The application flag Discord sets once the Message Content intent is enabled in the
Developer Portal (`GATEWAY_MESSAGE_CONTENT_LIMITED`; a verified bot's is 1 << 18)."""


@dataclass
class Sent:
    """One request the bot made: method, concrete path, JSON body and query parameters."""

    method: str
    path: str
    json: dict[str, Any] | None
    params: dict[str, Any] | None = None


def _user(user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "discriminator": "0",
        "global_name": name,
        "avatar": None,
        "bot": bot,
    }


BOT_USER = _user(BOT_ID, "codedesk", bot=True)


class DiscordError(Exception):
    def __init__(self, status: int, code: int, message: str) -> None:
        self.status, self.code, self.message = status, code, message


class DiscordApi(Protocol):
    """What the bot's HTTP layer talks to: this process's `FakeDiscord`, or one elsewhere."""

    async def ask(self, method: str, path: str, body: Any, params: Any) -> Any:
        """Answer one REST request, or raise DiscordError as Discord would refuse it."""
        ...


@dataclass
class FakeDiscord:
    """A tiny Discord: one guild, its channels and threads, messages, and a request log."""

    channels: dict[int, dict[str, Any]] = field(default_factory=dict)
    messages: dict[int, dict[str, Any]] = field(default_factory=dict)
    sent: list[Sent] = field(default_factory=list)
    failures: list[tuple[str, str, int, int]] = field(default_factory=list)
    """(method, path regex, status, code): the next request that matches fails so, once."""
    synced: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """The commands registered per guild id; the global ones under 0."""
    tokens: dict[str, dict[str, Any]] = field(default_factory=dict)
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(10_000))
    nonces: dict[tuple[int, str], int] = field(default_factory=dict)
    bot_permissions: int = ALL_PERMISSIONS
    """The guild-wide permissions of the bot's role."""
    closed_dms: set[int] = field(default_factory=set)
    """Users who take no direct message from the bot (Discord refuses a send with 50007)."""
    roles: dict[int, list[int]] = field(default_factory=dict)
    """The roles of the guild's members, by user id (a message's member carries them)."""
    message_content: bool = True
    """Whether the Message Content intent is enabled in the Developer Portal: without it the
    gateway refuses a bot that asks for it (4014), and the application's flags say so."""

    def next_id(self) -> int:
        return next(self.ids)

    # The guild's places

    def text_channel(self, name: str = "general") -> int:
        ident = self.next_id()
        self.channels[ident] = {
            "id": str(ident),
            "type": 0,
            "guild_id": str(GUILD_ID),
            "name": name,
            "position": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
        }
        return ident

    def forum(self, name: str = "ideas") -> int:
        """A forum channel: its posts are threads (`thread(forum)`), it takes no messages."""
        ident = self.text_channel(name)
        self.channels[ident].update(type=15, available_tags=[], default_reaction_emoji=None)
        return ident

    def dm(self, user: int) -> int:
        """The direct-message channel between the bot and `user` (the one there is, or new)."""
        for ident, data in self.channels.items():
            if data["type"] == 1 and data["recipients"][0]["id"] == str(user):
                return ident
        ident = self.next_id()
        self.channels[ident] = {
            "id": str(ident),
            "type": 1,
            "recipients": [_user(user, f"user{user}")],
            "last_message_id": None,
        }
        return ident

    def thread(
        self,
        parent: int,
        *,
        name: str = "thread",
        archived: bool = False,
        ident: int = 0,
        owner: int = BOT_ID,
    ) -> int:
        """A thread under `parent` (a forum's thread is a post), opened by `owner`."""
        ident = ident or self.next_id()
        self.channels[ident] = {
            "id": str(ident),
            "type": 11,
            "guild_id": str(GUILD_ID),
            "parent_id": str(parent),
            "owner_id": str(owner),
            "name": name,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "message_count": 0,
            "member_count": 1,
            "flags": 0,
            "thread_metadata": {
                "archived": archived,
                "auto_archive_duration": 1440,
                "archive_timestamp": _now(),
                "locked": False,
            },
        }
        return ident

    def manages_threads(self) -> bool:
        """Whether the bot's role has Manage Threads (or Administrator): it reopens locked ones."""
        return bool(self.bot_permissions & (MANAGE_THREADS | ADMINISTRATOR))

    def archived(self, channel: int) -> bool:
        return bool(self.channels[channel]["thread_metadata"]["archived"])

    def in_channel(self, channel: int) -> list[dict[str, Any]]:
        """The channel's messages, oldest first (ephemeral ones are not in any channel)."""
        return [
            m
            for m in self.messages.values()
            if m["channel_id"] == str(channel) and not m["flags"] & 64
        ]

    def message(self, channel: int, *, author: dict[str, Any] = BOT_USER, **fields: Any) -> int:
        ident = self.next_id()
        self.messages[ident] = {
            "id": str(ident),
            "channel_id": str(channel),
            "author": author,
            "content": "",
            "timestamp": _now(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
            "components": [],
            **fields,
        }
        return ident

    def said(
        self, channel: int, user: int, content: str, *, bot: bool = False, kind: int = 0
    ) -> int:
        """A person (or another bot) writes `content` in `channel`: the message's id. `kind` is
        Discord's message type (0 a message; 6 a pin and others are Discord's own)."""
        author = _user(user, f"user{user}", bot=bot)
        return self.message(channel, author=author, content=content, type=kind)

    def reactions(self, ident: int) -> list[str]:
        """The emoji the bot reacted to message `ident` with, in order."""
        return list(self.messages[ident].get("_reactions", []))

    def replies_to(self, ident: int) -> list[dict[str, Any]]:
        """The messages that reply to message `ident` (Discord's message reference)."""
        return [
            m
            for m in self.messages.values()
            if (m.get("message_reference") or {}).get("message_id") == str(ident)
        ]

    # What the bot sent

    def bodies(self) -> list[dict[str, Any]]:
        return [sent.json for sent in self.sent if sent.json is not None]

    def message_bodies(self) -> list[dict[str, Any]]:
        """Every body that creates or edits a message (content, embeds or components)."""
        bodies = []
        for body in self.bodies():
            if not isinstance(body, dict):
                continue  # a command sync sends a list
            inner = body.get("data") if "type" in body and "data" in body else body
            if isinstance(inner, dict) and {"content", "embeds", "components"} & set(inner):
                bodies.append(inner)
        return bodies

    def card(self, approval_id: str) -> dict[str, Any] | None:
        """The (last) message carrying this approval's buttons."""
        wanted = {CardKey.of(approval_id).custom_id(decision) for decision in Decision}
        found = None
        for message in self.messages.values():
            if wanted & set(custom_ids(message)):
                found = message
        return found

    def told(self, token: str) -> list[str]:
        """What the person who made the interaction `token` was told, in order: a deferred
        reply still "thinking" (no words yet) tells nothing."""
        mine = (m for m in self.messages.values() if m.get("_token") == token)
        return [m["content"] for m in mine if m["content"]]

    # Interactions, as the gateway delivers them

    def _interaction(
        self,
        kind: int,
        user: int,
        channel: int,
        data: dict[str, Any],
        roles: Iterable[int],
        permissions: int = ALL_PERMISSIONS,
    ) -> dict[str, Any]:
        ident = self.next_id()
        token = f"token-{ident}"
        self.tokens[token] = {"channel": channel, "message": None, "id": ident}
        payload: dict[str, Any] = {
            "id": str(ident),
            "application_id": str(BOT_ID),
            "type": kind,
            "data": data,
            "channel_id": str(channel),
            "channel": self.channels[channel],
            "token": token,
            "version": 1,
            "app_permissions": str(permissions),
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": 8_388_608,
        }
        if self.channels[channel]["type"] == 1:  # a DM: a user, no guild, no member
            payload.update(user=_user(user, f"user{user}"), context=1)
            payload["authorizing_integration_owners"] = {"0": str(GUILD_ID)}
            return payload
        payload.update(
            guild_id=str(GUILD_ID),
            guild_locale="en-US",
            context=0,
            authorizing_integration_owners={"0": str(GUILD_ID)},
            member={
                "user": _user(user, f"user{user}"),
                "roles": [str(role) for role in roles],
                "joined_at": _now(),
                "deaf": False,
                "mute": False,
                "flags": 0,
                "permissions": "2147483647",
            },
        )
        return payload

    def press(
        self, message_id: int, custom_id: str, user: int, *, roles: Iterable[int] = ()
    ) -> dict[str, Any]:
        message = self.messages[message_id]
        channel = int(message["channel_id"])
        payload = self._interaction(
            3, user, channel, {"custom_id": custom_id, "component_type": 2}, roles
        )
        payload["message"] = _public(message)
        self.tokens[payload["token"]]["message"] = message_id
        return payload

    def submit(self, token: str, user: int, *values: str) -> dict[str, Any]:
        """The MODAL_SUBMIT (type 5) of the modal the interaction `token` answered with: each
        text input's value, in order, in the modal's own rows; with the message its
        button was on."""
        opened = self.tokens[token]
        modal = opened["modal"]
        given = iter(values)

        def answered(child: dict[str, Any]) -> dict[str, Any]:
            return {"type": child["type"], "custom_id": child["custom_id"], "value": next(given)}

        rows = []
        for row in modal["components"]:
            if row["type"] == 1:
                rows.append({"type": 1, "components": [answered(c) for c in row["components"]]})
            else:  # a label (type 18) holds its one component
                rows.append({"type": row["type"], "component": answered(row["component"])})
        data = {"custom_id": modal["custom_id"], "components": rows}
        payload = self._interaction(5, user, opened["channel"], data, ())
        if opened["message"] is not None:
            payload["message"] = _public(self.messages[opened["message"]])
            self.tokens[payload["token"]]["message"] = opened["message"]
        return payload

    def command(
        self,
        name: str,
        user: int,
        channel: int,
        *,
        roles: Iterable[int] = (),
        autocomplete: bool = False,
        permissions: int = ALL_PERMISSIONS,
        **options: Any,
    ) -> dict[str, Any]:
        listed = []
        for key, value in options.items():
            kind = 5 if isinstance(value, bool) else 4 if isinstance(value, int) else 3
            listed.append({"name": key, "type": kind, "value": value})
        if autocomplete and listed:
            listed[0]["focused"] = True
        data: dict[str, Any] = {"id": "1", "name": name, "type": 1, "options": listed}
        if self.channels[channel]["type"] != 1:  # a guild's command; a DM's is global
            data["guild_id"] = str(GUILD_ID)
        kind = 4 if autocomplete else 2
        return self._interaction(kind, user, channel, data, roles, permissions)

    # The REST API

    async def ask(self, method: str, path: str, body: Any, params: Any) -> Any:
        await asyncio.sleep(0)  # a real request yields to the loop
        return self.answer(method, path, body, params)

    def answer(self, method: str, path: str, body: dict[str, Any] | None, params: Any) -> Any:
        self.sent.append(Sent(method, path, body, params))
        for failure in list(self.failures):
            if failure[0] == method and re.fullmatch(failure[1], path):
                self.failures.remove(failure)
                raise DiscordError(failure[2], failure[3], "injected failure")
        for pattern, handler in self._routes():
            found = re.fullmatch(pattern, f"{method} {path}")
            if found:
                return handler(body or {}, params or {}, *map(_int_or_str, found.groups()))
        raise DiscordError(404, 0, f"no fake route for {method} {path}")

    def _routes(self) -> list[tuple[str, Any]]:
        return [
            (r"GET /users/@me", lambda b, p: BOT_USER),
            (r"POST /users/@me/channels", self._open_dm),
            (r"GET /oauth2/applications/@me", lambda b, p: _application(self.message_content)),
            (r"GET /guilds/(\d+)", self._get_guild),
            (r"GET /guilds/(\d+)/members/(\d+)", self._get_member),
            (r"POST /channels/(\d+)/messages", self._create),
            (r"GET /channels/(\d+)/messages", self._history),
            (r"GET /channels/(\d+)/messages/(\d+)", self._get_message),
            (r"PATCH /channels/(\d+)/messages/(\d+)", self._edit),
            (r"PUT /channels/(\d+)/messages/(\d+)/reactions/([^/]+)/@me", self._react),
            (r"GET /channels/(\d+)", self._get_channel),
            (r"PATCH /channels/(\d+)", self._edit_channel),
            (r"POST /channels/(\d+)/messages/(\d+)/threads", self._start_thread),
            (r"PUT /applications/(\d+)/guilds/(\d+)/commands", self._sync),
            (r"PUT /applications/(\d+)/commands", lambda b, p, app: self._sync(b, p, app, 0)),
            (r"POST /interactions/(\d+)/([^/]+)/callback", self._callback),
            (r"(?:GET|PATCH) /webhooks/(\d+)/([^/]+)/messages/@original", self._original),
            (r"POST /webhooks/(\d+)/([^/]+)", self._followup),
        ]

    def _get_guild(self, body: Any, params: Any, guild: int) -> dict[str, Any]:
        if guild != GUILD_ID:
            raise DiscordError(403, 50001, "Missing Access")
        placed = [c for c in self.channels.values() if c.get("guild_id") == str(GUILD_ID)]
        return guild_payload(placed, self.bot_permissions)

    def _get_member(self, body: Any, params: Any, guild: int, user: int) -> dict[str, Any]:
        self._get_guild(body, params, guild)
        roles = [str(BOT_ROLE_ID)] if user == BOT_ID else []
        return {"user": _user(user, f"user{user}"), "roles": roles, "joined_at": _now()}

    def _open_dm(self, body: dict[str, Any], params: Any) -> dict[str, Any]:
        return self.channels[self.dm(int(body["recipient_id"]))]

    def _channel(self, channel: int) -> dict[str, Any]:
        if channel not in self.channels:
            raise DiscordError(404, 10003, "Unknown Channel")
        return self.channels[channel]

    def _create(self, body: dict[str, Any], params: Any, channel: int) -> dict[str, Any]:
        data = self._channel(channel)
        if data["type"] == 1 and int(data["recipients"][0]["id"]) in self.closed_dms:
            raise DiscordError(403, 50007, "Cannot send messages to this user")
        nonce = body.get("nonce")
        if nonce and body.get("enforce_nonce") and (channel, nonce) in self.nonces:
            return _public(self.messages[self.nonces[(channel, nonce)]])
        if data.get("thread_metadata", {}).get("archived"):
            if data["thread_metadata"].get("locked") and not self.manages_threads():
                raise DiscordError(400, 50083, "Thread is archived")
            data["thread_metadata"]["archived"] = False  # a post unarchives an open thread
        fields = {k: body[k] for k in ("content", "embeds", "components") if body.get(k)}
        reference = body.get("message_reference")
        if reference:
            if int(reference["message_id"]) not in self.messages:
                raise DiscordError(400, 50035, "Invalid Form Body: Unknown message")
            fields["message_reference"] = {
                **reference,
                "message_id": str(reference["message_id"]),
                "channel_id": str(channel),
            }
        if body.get("allowed_mentions") is not None:
            fields["_allowed_mentions"] = body["allowed_mentions"]
        if body.get("_files"):  # uploaded over the stand-in's HTTP (multipart)
            fields["_files"] = dict(body["_files"])
            fields["attachments"] = [
                _attachment(self.next_id(), channel, name, data) for name, data in body["_files"]
            ]
        ident = self.message(channel, **fields)
        if nonce:
            self.nonces[(channel, nonce)] = ident
        return _public(self.messages[ident])

    def _history(self, body: Any, params: dict[str, Any], channel: int) -> list[dict[str, Any]]:
        """Newest first, as Discord answers; `after` an id: the oldest `limit` after it."""
        self._channel(channel)
        limit = int(params.get("limit", 50))
        if "after" in params:
            after = [m for m in self.in_channel(channel) if int(m["id"]) > int(params["after"])]
            return [_public(m) for m in reversed(after[:limit])]
        newest_first = list(reversed(self.in_channel(channel)))
        return [_public(m) for m in newest_first[:limit]]

    def _react(self, body: Any, params: Any, channel: int, ident: int, emoji: str) -> None:
        """The bot reacts to a message with `emoji` (once: a second PUT changes nothing)."""
        self._channel(channel)
        if ident not in self.messages or self.messages[ident]["channel_id"] != str(channel):
            raise DiscordError(404, 10008, "Unknown Message")
        reacted = self.messages[ident].setdefault("_reactions", [])
        if unquote(emoji) not in reacted:
            reacted.append(unquote(emoji))

    def _get_message(self, body: Any, params: Any, channel: int, ident: int) -> dict[str, Any]:
        if ident not in self.messages:
            raise DiscordError(404, 10008, "Unknown Message")
        return _public(self.messages[ident])

    def _edit(self, body: dict[str, Any], params: Any, channel: int, ident: int) -> Any:
        data = self._channel(channel)
        if ident not in self.messages:
            raise DiscordError(404, 10008, "Unknown Message")
        if data.get("thread_metadata", {}).get("archived"):
            raise DiscordError(400, 50083, "Thread is archived")
        return self._apply(ident, body)

    def _apply(self, ident: int, body: dict[str, Any]) -> dict[str, Any]:
        message = self.messages[ident]
        for key in ("content", "embeds", "components"):
            if key in body:
                message[key] = body[key] or ("" if key == "content" else [])
        message["edited_timestamp"] = _now()
        return _public(message)

    def _get_channel(self, body: Any, params: Any, channel: int) -> dict[str, Any]:
        return self._channel(channel)

    def _edit_channel(self, body: dict[str, Any], params: Any, channel: int) -> dict[str, Any]:
        data = self._channel(channel)
        locked = data.get("thread_metadata", {}).get("locked")
        if body.get("archived") is False and locked and not self.manages_threads():
            raise DiscordError(403, 50013, "Missing Permissions")
        if "archived" in body:
            data["thread_metadata"]["archived"] = body["archived"]
        if "name" in body:
            data["name"] = body["name"]
        return data

    def _start_thread(self, body: dict[str, Any], params: Any, channel: int, ident: int) -> Any:
        self._channel(channel)
        return self.channels[self.thread(channel, name=body["name"], ident=ident)]

    def _sync(self, body: list[dict[str, Any]], params: Any, app: int, guild: int) -> Any:
        self.synced[guild] = body
        return [{**cmd, "id": str(self.next_id()), "application_id": str(app)} for cmd in body]

    def _callback(self, body: dict[str, Any], params: Any, ident: int, token: str) -> Any:
        state = self.tokens[token]
        kind, data = body["type"], body.get("data") or {}
        message_id: int | None = None
        if kind in (4, 5):  # a message (4), or the "thinking…" placeholder of a deferral (5)
            fields = {k: data[k] for k in ("content", "embeds", "components") if data.get(k)}
            message_id = self.message(
                state["channel"], flags=data.get("flags", 0), _token=token, **fields
            )
            state["original"] = message_id
            state["placeholder"] = kind == 5
        elif kind == 9:  # a modal: shown to the person, who may submit it (`submit`)
            state["modal"] = data
        elif kind in (6, 7):  # the component's own message is the original response
            state["original"] = message_id = state["message"]
            if kind == 7:
                self._apply(state["message"], data)
        answer: dict[str, Any] = {
            "interaction": {
                "id": str(ident),
                "type": 2,
                "response_message_id": str(message_id) if message_id else None,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(data.get("flags", 0) & 64),
            }
        }
        if message_id is not None:
            answer["resource"] = {"type": kind, "message": _public(self.messages[message_id])}
        return answer

    def _original(self, body: dict[str, Any], params: Any, app: int, token: str) -> Any:
        ident = self.tokens[token].get("original")
        if ident is None:
            raise DiscordError(404, 10015, "Unknown Webhook")
        return self._apply(ident, body) if body else _public(self.messages[ident])

    def _followup(self, body: dict[str, Any], params: Any, app: int, token: str) -> Any:
        state = self.tokens[token]
        if state.pop("placeholder", False):  # the first follow-up replaces "thinking…"
            return self._apply(state["original"], body)
        fields = {k: body[k] for k in ("content", "embeds", "components") if body.get(k)}
        ident = self.message(state["channel"], flags=body.get("flags", 0), _token=token, **fields)
        return _public(self.messages[ident])

    # Wiring a client to it

    def install(self, client: discord.Client) -> None:
        install(client, self)


def install(client: discord.Client, api: DiscordApi) -> None:
    """Put `api` where discord.py would reach Discord: its HTTP client and webhook adapter."""
    http = FakeHTTP(api, client.loop)
    client.http = http
    client._connection.http = http
    tree = getattr(client, "tree", None)
    if tree is not None:
        tree._http = http  # the command tree keeps the client's HTTP client
    async_context.set(FakeAdapter(api))


class FakeHTTP(HTTPClient):
    """discord.py's HTTP client with its one way out answered by a fake Discord."""

    def __init__(self, api: DiscordApi, loop: Any) -> None:
        super().__init__(loop)
        self.api = api

    async def static_login(self, token: str) -> Any:
        self.token = token
        return await self.request(Route("GET", "/users/@me"))

    async def request(self, route: Route, *, files: Any = None, form: Any = None, **kw: Any) -> Any:
        path = route.url.removeprefix(Route.BASE)
        try:
            return await self.api.ask(route.method, path, kw.get("json"), kw.get("params"))
        except DiscordError as error:
            raise _http_error(error) from None


class FakeAdapter(AsyncWebhookAdapter):
    """discord.py's webhook adapter (interaction responses, follow-ups) answered by the fake."""

    def __init__(self, api: DiscordApi) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.api = api

    async def request(self, route: Route, session: Any, **kw: Any) -> Any:
        path = route.url.removeprefix(Route.BASE)
        try:
            return await self.api.ask(route.method, path, kw.get("payload"), kw.get("params"))
        except DiscordError as error:
            raise _http_error(error) from None


def _http_error(error: DiscordError) -> discord.HTTPException:
    response = SimpleNamespace(status=error.status, reason="fake")
    data = {"code": error.code, "message": error.message}
    kind: type[discord.HTTPException] = discord.HTTPException
    if error.status == 403:
        kind = discord.Forbidden
    elif error.status == 404:
        kind = discord.NotFound
    elif error.status >= 500:
        kind = discord.DiscordServerError
    return kind(response, data)


def _attachment(ident: int, channel: int, name: str, data: bytes) -> dict[str, Any]:
    """An attachment object as Discord answers it (its file served from its CDN)."""
    url = f"https://cdn.discordapp.com/attachments/{channel}/{ident}/{name}"
    return {
        "id": str(ident),
        "filename": name,
        "size": len(data),
        "url": url,
        "proxy_url": url.replace("cdn.discordapp.com", "media.discordapp.net"),
        "content_type": "text/x-diff; charset=utf-8" if name.endswith(".diff") else "",
    }


def _public(message: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in message.items() if not k.startswith("_")}


def guild_payload(
    channels: Iterable[dict[str, Any]] = (), bot_permissions: int = ALL_PERMISSIONS
) -> dict[str, Any]:
    """The guild as the gateway's GUILD_CREATE carries it: its roles (the bot's own with
    `bot_permissions`), channels and threads."""
    placed = list(channels)
    bot_role = {**_role(BOT_ROLE_ID, "codedesk"), "permissions": str(bot_permissions)}
    return {
        "id": str(GUILD_ID),
        "name": "guild",
        "owner_id": str(OWNER_ID),
        "unavailable": False,
        "roles": [_role(GUILD_ID, "@everyone"), _role(OWNER_ROLE_ID, "owners"), bot_role],
        "channels": [c for c in placed if c["type"] not in THREAD_TYPES],
        "threads": [c for c in placed if c["type"] in THREAD_TYPES],
        "members": [],
        "emojis": [],
        "stickers": [],
        "features": [],
        "member_count": 2,
        "large": False,
    }


def _role(ident: int, name: str) -> dict[str, Any]:
    return {
        "id": str(ident),
        "name": name,
        "color": 0,
        "hoist": False,
        "position": 0,
        "permissions": "0",
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def _application(message_content: bool = True) -> dict[str, Any]:
    return {
        "id": str(BOT_ID),
        "name": "codedesk",
        "icon": None,
        "description": "",
        "bot_public": False,
        "bot_require_code_grant": False,
        "verify_key": "0" * 64,
        "owner": _user(OWNER_ID, "owner"),
        "flags": MESSAGE_CONTENT_LIMITED if message_content else 0,
    }


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _int_or_str(value: str) -> int | str:
    return int(value) if value.isdigit() else value


def custom_ids(message: dict[str, Any]) -> list[str]:
    return [
        child["custom_id"]
        for row in message.get("components", [])
        for child in row.get("components", [])
        if "custom_id" in child
    ]


def progress_of(fake: FakeDiscord, thread: int) -> dict[str, Any] | None:
    """The job's progress message in `thread` (found by its footer), if it was posted."""
    for message in fake.in_channel(thread):
        embeds = message["embeds"]
        if embeds and embeds[0].get("footer", {}).get("text") == "codedesk · progress":
            return message
    return None


def description(fake: FakeDiscord, thread: int) -> str:
    """What the progress message in `thread` shows now ("" before it is posted)."""
    message = progress_of(fake, thread)
    return str(message["embeds"][0]["description"]) if message else ""


def enabled(message: dict[str, Any]) -> bool:
    children = [child for row in message["components"] for child in row["components"]]
    return bool(children) and not any(child.get("disabled") for child in children)
