"""`DiscordStandIn`: Discord's REST API and gateway on one port of 127.0.0.1, for real bots.

It serves `FakeDiscord`'s model of a guild (its channels, threads, forum posts and DMs, and
the messages in them) through `rest.RestApi` and `gateway.Gateway`, so a bot process that
runs discord.py unchanged (only `Route.BASE` and `DiscordWebSocket.DEFAULT_GATEWAY` pointed
here, launch.py) logs in, syncs its commands, receives interactions over the websocket and
answers them over HTTP as it would against Discord.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from tests.protocol.stand_in.gateway import Gateway
from tests.protocol.stand_in.rest import API, RestApi
from tests.surfaces.fake_discord import FakeDiscord

TOKEN = "stand-in-token"
"""The bot token the stand-in accepts (CODEDESK_DISCORD_TOKEN of the bot under test)."""


class DiscordStandIn:
    """Discord on 127.0.0.1: `api_base` and `gateway_url` are what a bot is pointed at."""

    def __init__(self, fake: FakeDiscord, *, token: str = TOKEN) -> None:
        self.fake = fake
        self.rest = RestApi(fake, token)
        self.gateway = Gateway(fake, token)
        self.api_base = ""
        self._runner: web.AppRunner | None = None

    async def __aenter__(self) -> DiscordStandIn:
        app = self.rest.app()
        self.gateway.route(app)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.api_base = f"http://127.0.0.1:{port}{API}"
        self.gateway.url = f"ws://127.0.0.1:{port}/gateway"
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.gateway.drop(1001)
        assert self._runner is not None
        await self._runner.cleanup()

    async def interact(self, payload: dict[str, Any]) -> str:
        """Deliver an interaction (`fake.command`, `fake.press`) as Discord does; its token.

        Its 3 s start now: the bot must acknowledge it by then, or Discord refuses it. A command
        comes only from where Discord offers it: in a guild if the bot registered it there or
        globally, in a DM only if globally.
        """
        if payload["type"] in (2, 4):
            name = payload["data"]["name"]
            offered = [0] if "guild_id" not in payload else [0, int(payload["guild_id"])]
            registered = {c["name"] for where in offered for c in self.fake.synced.get(where, [])}
            assert name in registered, f"Discord offers no /{name} there: it was not registered"
        self.rest.interaction_created(payload["token"])
        await self.gateway.dispatch("INTERACTION_CREATE", payload)
        return str(payload["token"])
