"""The real console script, pointed at a Discord stand-in (test code; users run `codedesk`).

    python -m tests.protocol.stand_in.launch API_BASE GATEWAY_URL discord [--sync]

Sets the two places discord.py reaches Discord from, `discord.http.Route.BASE` (REST and the
webhook adapter of interaction responses) and `DiscordWebSocket.DEFAULT_GATEWAY`, and runs
`codedesk` with the remaining arguments; nothing else of discord.py or of codedesk changes.
"""

from __future__ import annotations

import sys

import discord.http
import yarl
from discord.gateway import DiscordWebSocket


def main() -> None:
    api_base, gateway, *arguments = sys.argv[1:]
    discord.http.Route.BASE = api_base  # type: ignore[misc]
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    sys.argv = ["codedesk", *arguments]
    from surfaces.cli.main import main as codedesk

    codedesk()


if __name__ == "__main__":
    main()
