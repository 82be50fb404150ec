"""The Discord bot as a process of its own on the offline harness (test code; users run
`codedesk discord`).

    python -m tests.surfaces.bot_process HOST:PORT QUEUE

It is the product's `CodedeskBot`, started by `start_bot` as the in-process tests start it
(setup hook, surface worker on QUEUE, Temporal client and settings from the environment as
`codedesk discord` reads them); only the transport is the harness's: REST calls go to the
test's fake Discord at HOST:PORT (tests/surfaces/discord_wire.py), and the gateway's events
come as JSON lines on stdin. The lines on stdout are the protocol's and nothing else's
(logs go to stderr):

    stdout  {"ready": QUEUE}                  logged in, the surface worker started
    stdin   {"deliver": INTERACTION_CREATE}   one interaction, as the gateway delivers it
    stdout  {"delivered": ID}                 its handlers have finished

End of stdin closes the bot and the process exits.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from typing import Any, TextIO

from desk.config.settings import load_settings
from tests.surfaces.discord_driver import deliver, start_bot
from tests.surfaces.discord_wire import RemoteDiscord
from workers.temporal.client import connect


async def serve(address: str, queue: str, protocol: TextIO) -> None:
    settings = load_settings()
    temporal = await connect(settings)
    discord = await RemoteDiscord.connect(address)
    bot = await start_bot(discord, settings, temporal, queue=queue, host_activities=True)

    def say(value: dict[str, Any]) -> None:
        protocol.write(json.dumps(value) + "\n")
        protocol.flush()

    try:
        say({"ready": queue})
        while asked := await asyncio.to_thread(sys.stdin.readline):
            payload = json.loads(asked)["deliver"]
            await deliver(bot, payload)
            say({"delivered": payload["id"]})
    finally:
        await bot.close()
        await discord.close()


def main() -> None:
    address, queue = sys.argv[1:]
    # The protocol keeps the real stdout; anything else printed goes to stderr with the logs.
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    asyncio.run(serve(address, queue, protocol))


if __name__ == "__main__":
    main()
