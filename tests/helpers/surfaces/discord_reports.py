"""What a chat shows of a job on the fake Discord: its report in a channel, its number as the bot
told it."""

from __future__ import annotations

import re

from tests.surfaces.fake_discord import FakeDiscord


def report_in(fake: FakeDiscord, channel: int, number: int) -> list[str]:
    heading = f"## Job {number} on "
    return [m["content"] for m in fake.in_channel(channel) if m["content"].startswith(heading)]


def job_number(told: list[str]) -> int:
    found = re.search(r"Job \*\*(\d+)\*\* is (running|queued)", " ".join(told))
    assert found, told
    return int(found[1])
