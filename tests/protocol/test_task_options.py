"""`/task`'s options (issue 30 part 4) on Discord's protocol, with the real bot process: an
agent preset (autocompleted), a work budget and a spend limit, which may only be stricter than
the host's."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from desk.agents.presets import PRESETS
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobInput
from surfaces.clients.desk_client import DeskClient
from tests.helpers.waiting import until
from tests.protocol.stand_in.bot import bot_env, codedesk_discord
from tests.protocol.stand_in.server import DiscordStandIn
from tests.surfaces.fake_discord import OWNER_ID, FakeDiscord


def choices(fake: FakeDiscord, token: str) -> list[dict[str, Any]] | None:
    """The autocomplete answer the bot gave to the interaction `token`."""
    path = re.compile(rf"/interactions/\d+/{token}/callback")
    for sent in fake.sent:
        if path.fullmatch(sent.path) and sent.json and sent.json.get("type") == 8:
            found: list[dict[str, Any]] = sent.json["data"]["choices"]
            return found
    return None


async def test_task_takes_a_preset_a_stricter_budget_and_a_spend_limit_and_refuses_a_looser_one(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord()
    channel = fake.text_channel()
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(bot_env(settings), discord, tmp_path / "bot.log"),
    ):
        typing = fake.command("task", OWNER_ID, channel, autocomplete=True, agent="c")
        token = await discord.interact(typing)
        shown = await until(lambda: choices(fake, token), "the presets offered")
        assert [c["name"] for c in shown] == sorted(n for n in PRESETS if n.startswith("c"))

        unknown = fake.command("task", OWNER_ID, channel, repo="acme/api", task="x", agent="zz")
        token = await discord.interact(unknown)
        await until(lambda: fake.told(token), "the refusal of an unknown preset")
        assert "There is no agent preset" in fake.told(token)[0]

        preset = fake.command("task", OWNER_ID, channel, repo="acme/api", task="x", agent="codex")
        token = await discord.interact(preset)
        await until(lambda: "Refused" in " ".join(fake.told(token)), "codex checked by the desk")
        assert "'codex' is not installed" in " ".join(fake.told(token))  # not the host's agent

        looser = fake.command("task", OWNER_ID, channel, repo="acme/api", task="x", budget="2d")
        token = await discord.interact(looser)
        await until(lambda: "Refused" in " ".join(fake.told(token)), "a looser budget refused")
        assert "above the host's bound" in " ".join(fake.told(token))
        assert await desk.jobs() == []

        nonsense = fake.command(
            "task", OWNER_ID, channel, repo="acme/api", task="x", spend_limit="lots"
        )
        token = await discord.interact(nonsense)
        await until(lambda: fake.told(token), "the refusal of a spend limit that is no amount")
        assert "is not a positive amount of US dollars" in fake.told(token)[0]
        assert await desk.jobs() == []

        stricter = fake.command(
            "task",
            OWNER_ID,
            channel,
            repo="acme/api",
            task="say hi",
            budget="5m",
            spend_limit="$2.50",
            review=True,
        )
        token = await discord.interact(stricter)
        await until(lambda: "is running" in " ".join(fake.told(token)), "the job started")
        [row] = await desk.jobs()
        history = await desk.job(row.number).fetch_history()
        started = history.events[0].workflow_execution_started_event_attributes
        [job] = await desk.client.data_converter.decode(started.input.payloads, [JobInput])
        assert job.budget == timedelta(minutes=5)
        assert job.spend_limit == Decimal("2.50")
        assert job.review  # the work waits for review before it lands
        assert discord.rest.refused == []
