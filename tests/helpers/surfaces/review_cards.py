"""A job's review card in the stand-in's guild, for the tests that press its buttons."""

from __future__ import annotations

import re
from typing import Any

from desk.payloads.conversation.review_payloads import ReviewVerdict
from surfaces.discord.review.review_ids import ReviewKey
from tests.helpers.waiting import eventually
from tests.protocol.stand_in.server import DiscordStandIn
from tests.surfaces.fake_discord import OWNER_ID, FakeDiscord


async def reviewed_job_in_thread(
    fake: FakeDiscord, discord: DiscordStandIn, task: str
) -> tuple[int, int]:
    """/task with `review` in a channel: the job's number and its thread."""
    channel = fake.text_channel()
    token = await discord.interact(
        fake.command("task", OWNER_ID, channel, repo="acme/api", task=task, review=True)
    )
    said = await eventually(
        lambda: " ".join(fake.told(token)), lambda told: "is running" in told, "the job's answer"
    )
    found = re.search(r"Job \*\*(\d+)\*\* is running", said)
    assert found, said
    return int(found[1]), int(fake.in_channel(channel)[0]["id"])


def card_of(fake: FakeDiscord, thread: int, key: ReviewKey) -> dict[str, Any] | None:
    """The open card of `key`'s round in `thread` (None: not posted, or closed)."""
    wanted = key.custom_id(ReviewVerdict.INTEGRATE)
    for message in fake.in_channel(thread):
        ids = [c.get("custom_id") for row in message["components"] for c in row["components"]]
        if wanted in ids:
            return message
    return None


async def card_posted(fake: FakeDiscord, thread: int, key: ReviewKey) -> dict[str, Any]:
    """Until the card of `key`'s round is in the thread."""
    card: dict[str, Any] = await eventually(
        lambda: card_of(fake, thread, key), lambda card: card is not None, f"the card of {key}"
    )
    return card


def press(
    fake: FakeDiscord, card: dict[str, Any], verdict: ReviewVerdict, key: ReviewKey, user: int
) -> dict[str, Any]:
    """A press on one of the card's buttons by `user`."""
    return fake.press(int(card["id"]), key.custom_id(verdict), user)
