"""A job started from a Discord channel with /task, for the tests that talk to it in its thread."""

from __future__ import annotations

import re

from tests.helpers.waiting import eventually
from tests.protocol.stand_in.server import DiscordStandIn
from tests.surfaces.fake_discord import OWNER_ID, FakeDiscord


async def job_in_thread(fake: FakeDiscord, discord: DiscordStandIn, task: str) -> tuple[int, int]:
    """/task in a channel: the job's number and its thread."""
    channel = fake.text_channel()
    token = await discord.interact(
        fake.command("task", OWNER_ID, channel, repo="acme/api", task=task)
    )
    said = await eventually(
        lambda: " ".join(fake.told(token)), lambda told: "is running" in told, "the job's answer"
    )
    found = re.search(r"Job \*\*(\d+)\*\* is running", said)
    assert found, said
    return int(found[1]), int(fake.in_channel(channel)[0]["id"])
