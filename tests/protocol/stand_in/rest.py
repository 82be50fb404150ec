"""Discord's REST API over HTTP on 127.0.0.1, answered by `FakeDiscord`'s model of the guild.

discord.py's own `HTTPClient` and webhook adapter reach it once `discord.http.Route.BASE`
points here (`api_base`). On top of the model it enforces what Discord does at the door: the
bot token on bot routes (401), Discord's limits on every body (`limits.py`, 400 50035), rate
limit buckets with discord.py's headers and 429 + `retry_after` when a bucket is spent (or
when a test `throttle`s a route once), and the 3 s interaction deadline: a callback later
than `INTERACTION_DEADLINE` after the interaction was created is refused with 404 10062
Unknown interaction, a second callback with 400 40060, and a follow-up of one never
acknowledged with 404 10015 Unknown Webhook. A file over Discord's upload limit is refused
with 413 40005; a modal (callback type 9) over its limits with 400 50035.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.protocol.stand_in import limits
from tests.surfaces.fake_discord import DiscordError, FakeDiscord

API = "/api/v10"
INTERACTION_DEADLINE = 3.0
"""Seconds Discord gives a bot to acknowledge an interaction."""
UNKNOWN_INTERACTION = 10062
ALREADY_ACKNOWLEDGED = 40060
UNKNOWN_WEBHOOK = 10015
TOKENLESS = re.compile(r"/(interactions|webhooks)/")
"""Interaction callbacks and follow-ups are authorised by the interaction's token."""


@dataclass
class Bucket:
    """One rate limit bucket: `limit` requests per `window` seconds."""

    started: float = 0.0
    used: int = 0


@dataclass
class Refusal:
    """A request Discord refused at the door: its method, path, status and error code."""

    method: str
    path: str
    status: int
    code: int


@dataclass
class RestApi:
    """The REST half of the stand-in (see the module docstring)."""

    fake: FakeDiscord
    token: str
    limit: int = 5
    window: float = 1.0
    """A bucket's size and period: Discord's are per route and major parameter."""
    buckets: dict[str, Bucket] = field(default_factory=dict)
    throttled: list[tuple[str, str, float]] = field(default_factory=list)
    """(method, path regex, retry_after): the next matching request gets a 429, once."""
    refused: list[Refusal] = field(default_factory=list)
    deadlines: dict[str, float] = field(default_factory=dict)
    acknowledged: set[str] = field(default_factory=set)

    def throttle(self, method: str, path: str, retry_after: float = 0.3) -> None:
        self.throttled.append((method, path, retry_after))

    def interaction_created(self, token: str) -> None:
        self.deadlines[token] = _now() + INTERACTION_DEADLINE

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", API + "/{path:.*}", self._handle)
        return app

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["path"]
        method = request.method
        if not TOKENLESS.match(path) and request.headers.get("Authorization") != (
            f"Bot {self.token}"
        ):
            return self._error(method, path, DiscordError(401, 0, "401: Unauthorized"))
        bucket_key = _bucket_of(method, path)
        for throttled in list(self.throttled):
            if throttled[0] == method and re.fullmatch(throttled[1], path):
                self.throttled.remove(throttled)
                return self._rate_limited(method, path, bucket_key, throttled[2])
        headers: dict[str, str] = {}
        if not TOKENLESS.match(path):
            spent, headers = self._spend(bucket_key)
            if spent is not None:
                return self._rate_limited(method, path, bucket_key, spent)
        body = await _body(request)
        try:
            self._check(method, path, body)
            answer = self.fake.answer(method, path, body, dict(request.query))
        except DiscordError as error:
            return self._error(method, path, error, headers)
        if answer is None:
            return web.Response(status=204, headers=headers)
        return _json(answer, headers=headers)

    def _check(self, method: str, path: str, body: Any) -> None:
        """Discord's own refusals of a request the model would otherwise take."""
        found = re.fullmatch(r"/interactions/\d+/([^/]+)/callback", path)
        if found:
            self._acknowledge(found[1])
            data = body.get("data") or {}
            if body.get("type") == 8:
                limits.check_choices(data)
            elif body.get("type") in (4, 7):
                limits.check_message(data, new=body["type"] == 4)
            elif body.get("type") == 9:
                limits.check_modal(data)
        elif method == "POST" and re.fullmatch(r"/channels/\d+/messages", path):
            limits.check_files(body)
            limits.check_message(body, new=True)
        elif method == "PATCH" and re.fullmatch(r"/channels/\d+/messages/\d+", path):
            limits.check_message(body, new=False)
        elif found := re.fullmatch(r"/webhooks/\d+/([^/]+)(/messages/@original)?", path):
            if found[1] not in self.acknowledged:  # nothing to follow up on
                raise DiscordError(404, UNKNOWN_WEBHOOK, "Unknown Webhook")
            if body:
                limits.check_message(body, new=method == "POST")
        elif re.fullmatch(r"/channels/\d+(/messages/\d+/threads)?", path) and body:
            limits.check_thread_name(body)
        elif method == "PUT" and path.endswith("/commands"):
            limits.check_commands(body)

    def _acknowledge(self, token: str) -> None:
        if token in self.acknowledged:
            raise DiscordError(400, ALREADY_ACKNOWLEDGED, "Interaction already acknowledged.")
        deadline = self.deadlines.get(token)
        if deadline is None or _now() > deadline:
            raise DiscordError(404, UNKNOWN_INTERACTION, "Unknown interaction")
        self.acknowledged.add(token)

    def _spend(self, key: str) -> tuple[float | None, dict[str, str]]:
        """Take one request from the bucket: None, or the seconds until it refills."""
        now = _now()
        bucket = self.buckets.setdefault(key, Bucket(started=now))
        if now - bucket.started >= self.window:
            bucket.started, bucket.used = now, 0
        reset_after = max(self.window - (now - bucket.started), 0.001)
        if bucket.used >= self.limit:
            return reset_after, {}
        bucket.used += 1
        return None, {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.limit - bucket.used),
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": _hash(key),
        }

    def _rate_limited(self, method: str, path: str, key: str, retry_after: float) -> web.Response:
        self.refused.append(Refusal(method, path, 429, 0))
        body = {"message": "You are being rate limited.", "retry_after": retry_after}
        body["global"] = False
        headers = {
            "Via": "1.1 google",  # discord.py takes a 429 without it for a Cloudflare ban
            "Retry-After": str(max(int(retry_after), 1)),
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
            "X-RateLimit-Bucket": _hash(key),
            "X-RateLimit-Scope": "user",
        }
        return _json(body, status=429, headers=headers)

    def _error(
        self, method: str, path: str, error: DiscordError, headers: dict[str, str] | None = None
    ) -> web.Response:
        self.refused.append(Refusal(method, path, error.status, error.code))
        body = {"code": error.code, "message": error.message}
        return _json(body, status=error.status, headers=headers or {})


def _json(value: Any, *, status: int = 200, headers: dict[str, str]) -> web.Response:
    """A JSON answer as Discord sends it: discord.py parses only `application/json` exactly."""
    headers = {**headers, "Content-Type": "application/json"}
    return web.Response(body=json.dumps(value).encode(), status=status, headers=headers)


def _bucket_of(method: str, path: str) -> str:
    """Discord's buckets are per route and major parameter (the channel, guild or webhook)."""
    major = re.match(r"/(channels|guilds|webhooks)/(\d+)", path)
    route = re.sub(r"\d{3,}", "{id}", path)
    return f"{method} {route} {major[2] if major else ''}"


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


async def _body(request: web.Request) -> Any:
    if not request.can_read_body:
        return None
    if request.content_type.startswith("multipart/"):
        form = await request.post()
        payload = form.get("payload_json")
        body = json.loads(str(payload)) if payload is not None else {}
        files = [
            (part.filename, part.file.read())
            for name, part in form.items()
            if name.startswith("files[") and isinstance(part, web.FileField)
        ]
        if files:  # the files uploaded, by their place in `attachments`
            body["_files"] = files
        return body
    text = await request.text()
    return json.loads(text) if text else None


def _now() -> float:
    return asyncio.get_running_loop().time()
