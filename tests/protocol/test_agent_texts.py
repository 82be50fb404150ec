"""The agent's own texts worth reading reach its job's thread as messages of their own (issue 30
part 3), with the real bot process on Discord's protocol: a long paragraph and a structured one
are posted, neutralised; a short one stays in the progress message's lines only."""

from __future__ import annotations

from pathlib import Path

from desk.config.settings import DeskSettings
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent_script
from tests.helpers.surfaces.discord_reports import job_number, report_in
from tests.helpers.waiting import until
from tests.protocol.stand_in.bot import bot_env, codedesk_discord
from tests.protocol.stand_in.server import DiscordStandIn
from tests.surfaces.fake_discord import OWNER_ID, FakeDiscord, description

LONG = "I read the module first. " * 17 + "Ping @everyone at https://example.com when done."
PLAN = ["## Plan", "- read the code", "- write the test"]


async def test_long_and_structured_agent_texts_are_messages_of_their_own(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    finish = gates / "finish"
    steps = [f"say:{LONG}", "say:", *[f"say:{line}" for line in PLAN], "say:"]
    command = agent_script(gates, *steps, "say:a short note", "say:", f"wait:{finish}")
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord()
    channel = fake.text_channel()
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=command)
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(env, discord, tmp_path / "bot.log"),
    ):
        asked = fake.command("task", OWNER_ID, channel, repo="acme/api", task="think aloud")
        token = await discord.interact(asked)
        await until(lambda: "is running" in " ".join(fake.told(token)), "the job's answer")
        number = job_number(fake.told(token))
        thread = int(fake.in_channel(channel)[0]["id"])

        def texts() -> list[str]:
            return [m["content"] for m in fake.in_channel(thread) if m["content"]]

        await until(lambda: len(texts()) >= 2, "the agent's two texts in the thread")
        await until(lambda: "a short note" in description(fake, thread), "the latest lines")
        long_text, plan = texts()[:2]
        assert long_text.startswith("I read the module first. ")
        assert "@everyone" not in long_text and "https://" not in long_text  # neutralised
        assert "everyone" in long_text and "example.com" in long_text
        assert plan == "\n".join(PLAN)
        finish.touch()
        await desk.wait(number)
        await until(lambda: report_in(fake, thread, number), "the report in the thread")
        posted = [text for text in texts() if not text.startswith(f"## Job {number} on ")]
        assert not any("a short note" in text for text in posted), posted
        assert sum(text.startswith("I read the module") for text in posted) == 1, posted
        assert discord.rest.refused == []
