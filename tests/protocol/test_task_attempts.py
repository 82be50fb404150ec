"""Several attempts at one task from Discord (issue 48), with the real bot process on Discord's
protocol: `/task` takes `agents`, `attempts` and `pick_first_passing`, with the CLI's refusals."""

from __future__ import annotations

from pathlib import Path

from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobInput
from surfaces.clients.desk_client import DeskClient
from tests.helpers.surfaces.attempt_agents import writes_its_own_file
from tests.helpers.waiting import until
from tests.protocol.stand_in.bot import bot_env, codedesk_discord
from tests.protocol.stand_in.server import DiscordStandIn
from tests.surfaces.fake_discord import OWNER_ID, FakeDiscord

REPO = "acme/api"


async def test_task_asks_for_attempts_and_refuses_what_the_cli_refuses(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord()
    channel = fake.text_channel()
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=writes_its_own_file(gates))
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(env, discord, tmp_path / "bot.log"),
    ):
        refused = {
            "two presets or more": {"agents": "claude"},
            "zz is none": {"agents": "claude,zz"},
            "Give option agents or option attempts, not both.": {
                "agents": "claude,codex",
                "attempts": 2,
            },
            "option attempts 1: ask for 2 or more": {"attempts": 1},
            "option pick\\_first\\_passing picks among attempts": {"pick_first_passing": True},
        }
        for words, options in refused.items():
            ask = fake.command("task", OWNER_ID, channel, repo="acme/api", task="x", **options)
            token = await discord.interact(ask)
            await until(lambda token=token: fake.told(token), f"the refusal of {options}")
            assert words in fake.told(token)[0], (options, fake.told(token))
        assert await desk.jobs() == []

        ask = fake.command(
            "task",
            OWNER_ID,
            channel,
            repo="acme/api",
            task="add a file",
            attempts=2,
            pick_first_passing=True,
        )
        token = await discord.interact(ask)
        await until(lambda: "is running" in " ".join(fake.told(token)), "the job started")
        assert discord.rest.refused == []

    [row] = await desk.jobs()
    history = await desk.job(row.number).fetch_history()
    started = history.events[0].workflow_execution_started_event_attributes
    [job] = await desk.client.data_converter.decode(started.input.payloads, [JobInput])
    assert [(a.label, a.agent_command) for a in job.attempts] == [
        ("a", env["CODEDESK_AGENT_COMMAND"]),
        ("b", env["CODEDESK_AGENT_COMMAND"]),
    ]
    assert job.pick_first_passing
