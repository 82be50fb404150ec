"""A job is followed where it was asked (issue 30 parts 1 and 2), with the real bot process on
Discord's protocol: `/task` in a thread, a forum post or a DM gets its progress and report
there; a job whose thread is archived while it runs keeps its progress and its report, and one
locked against the bot sends its report to the requester's direct messages, never another
channel; where the bot cannot post, `/task` refuses before any job starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.config.settings import DeskSettings
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent_script
from tests.helpers.surfaces.discord_reports import job_number, report_in
from tests.helpers.waiting import eventually, until
from tests.protocol.stand_in.bot import bot_env, codedesk_discord
from tests.protocol.stand_in.server import DiscordStandIn
from tests.surfaces.fake_discord import (
    ADMINISTRATOR,
    ALL_PERMISSIONS,
    MANAGE_THREADS,
    OWNER_ID,
    FakeDiscord,
    description,
    progress_of,
)

SEND_MESSAGES_IN_THREADS = 1 << 38


@pytest.mark.parametrize("where", ["thread", "forum post", "DM"])
async def test_a_job_asked_in_a_thread_a_forum_post_or_a_dm_is_followed_there(
    where: str, desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord()
    general = fake.text_channel()
    place = {
        "thread": lambda: fake.thread(general, name="let us talk", owner=OWNER_ID),
        "forum post": lambda: fake.thread(fake.forum(), name="an idea", owner=OWNER_ID),
        "DM": lambda: fake.dm(OWNER_ID),
    }[where]()
    sync = "--sync-global" if where == "DM" else "--sync"  # Discord offers DMs global commands
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(bot_env(settings), discord, tmp_path / "bot.log", sync),
    ):
        asked = fake.command("task", OWNER_ID, place, repo="acme/api", task="say hello")
        token = await discord.interact(asked)
        told = lambda: " ".join(fake.told(token))  # noqa: E731
        await eventually(told, lambda said: "follow it here" in said, "the job's answer")
        number = job_number(fake.told(token))
        await desk.wait(number)
        await until(lambda: report_in(fake, place, number), f"the report in the {where}")
        assert progress_of(fake, place) is not None, fake.in_channel(place)
        assert fake.in_channel(general) == [], "the job went somewhere else"
        assert [c for c in fake.channels.values() if c.get("parent_id") == str(place)] == []
        if where != "DM":
            assert not fake.archived(place), "a thread someone else opened was archived"
        assert discord.rest.refused == []


async def test_a_thread_archived_while_the_job_runs_keeps_its_progress_and_report(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    go_on, finish = gates / "go-on", gates / "finish"
    command = agent_script(
        gates, "say:first look", f"wait:{go_on}", "say:second look", f"wait:{finish}"
    )
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord()
    channel = fake.text_channel()
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=command)
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(env, discord, tmp_path / "bot.log"),
    ):
        asked = fake.command("task", OWNER_ID, channel, repo="acme/api", task="look twice")
        token = await discord.interact(asked)
        await until(lambda: "is running" in " ".join(fake.told(token)), "the job's answer")
        number = job_number(fake.told(token))
        [answer] = fake.in_channel(channel)
        thread = int(answer["id"])  # the job's thread, under the answer
        await until(lambda: "first look" in description(fake, thread), "the first look shown")
        fake.channels[thread]["thread_metadata"]["archived"] = True  # Discord's inactivity
        go_on.touch()
        await until(lambda: "second look" in description(fake, thread), "progress after it")
        finish.touch()
        await desk.wait(number)
        await until(lambda: report_in(fake, thread, number), "the report in the thread")
        await until(lambda: fake.archived(thread), "the thread archived after the report")
        reopened = [s for s in fake.sent if s.path == f"/channels/{thread}" and s.json]
        assert [s.json for s in reopened] == [{"archived": False}, {"archived": True}]
        edits = [r for r in discord.rest.refused if r.path.startswith(f"/channels/{thread}/")]
        assert [(r.method, r.code) for r in edits] == [("PATCH", 50083)]


async def test_a_task_where_the_bot_may_not_post_is_refused_before_a_job_starts(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord()
    thread = fake.thread(fake.text_channel(), owner=OWNER_ID)
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(bot_env(settings), discord, tmp_path / "bot.log"),
    ):
        mute = ALL_PERMISSIONS & ~SEND_MESSAGES_IN_THREADS
        asked = fake.command(
            "task", OWNER_ID, thread, repo="acme/api", task="say hi", permissions=mute
        )
        token = await discord.interact(asked)
        await until(lambda: fake.told(token), "the refusal")
        [told] = fake.told(token)
        assert "Send Messages in Threads" in told, told
        assert await desk.jobs() == []
        assert fake.in_channel(thread) == []


async def test_a_thread_locked_against_the_bot_sends_its_report_to_the_requester_saying_why(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    go_on, finish = gates / "go-on", gates / "finish"
    command = agent_script(
        gates, "say:first look", f"wait:{go_on}", "say:second look", f"wait:{finish}"
    )
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord(bot_permissions=ALL_PERMISSIONS & ~(ADMINISTRATOR | MANAGE_THREADS))
    channel = fake.text_channel()
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=command)
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(env, discord, tmp_path / "bot.log"),
    ):
        asked = fake.command("task", OWNER_ID, channel, repo="acme/api", task="look twice")
        token = await discord.interact(asked)
        await until(lambda: "is running" in " ".join(fake.told(token)), "the job's answer")
        number = job_number(fake.told(token))
        thread = int(fake.in_channel(channel)[0]["id"])
        await until(lambda: "first look" in description(fake, thread), "the first look shown")
        fake.channels[thread]["thread_metadata"].update(archived=True, locked=True)  # a mod
        go_on.touch()
        await until(
            lambda: any(r.code == 50013 for r in discord.rest.refused), "the reopening refused"
        )
        finish.touch()
        await desk.wait(number)
        direct = fake.dm(OWNER_ID)
        await until(lambda: report_in(fake, direct, number), "the report in the requester's DMs")
        told = " ".join(m["content"] for m in fake.in_channel(direct))
        assert f"the job you asked for in <#{thread}>, which refused it" in told
        assert "the bot lacks Manage Threads" in told
        # Never another channel: the parent has only the command's answer, the thread nothing.
        assert report_in(fake, channel, number) == [] and report_in(fake, thread, number) == []
        assert "second look" not in description(fake, thread)  # Discord kept it closed
