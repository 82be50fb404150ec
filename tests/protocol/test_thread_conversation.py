"""A job's thread is its conversation (issue 45), with the real bot process on Discord's
protocol: the requester's message there reaches the job's agent and gets a reaction; a
stranger's changes nothing and gets one notice; a bot's, an empty one and Discord's own are
ignored; a message over the host's
limit, or to a job whose agent is done, is refused with a reply saying why and what to do
(once per person after the report); a
message written while the bot is down is passed on once when it comes back; a bot whose
Message Content intent Discord refuses says how to turn it on."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from activities.agent.session.agent_messages import MESSAGES_FILE
from activities.agent.session.log import AGENT_LOG
from activities.shelf_paths import job_dir
from desk.config.settings import DeskSettings
from desk.payloads.message_payloads import MessageSeam
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent_script
from tests.helpers.desks import host_policy
from tests.helpers.surfaces.discord_threads import job_in_thread
from tests.helpers.waiting import awaited, eventually, until
from tests.protocol.stand_in.bot import ROOT, bot_env, codedesk_discord
from tests.protocol.stand_in.server import DiscordStandIn
from tests.surfaces.fake_discord import OWNER_ID, STRANGER_ID, FakeDiscord

OTHER_BOT = 901
PINNED = 6
"""Discord's message type of "pinned a message", one of its own messages in a channel."""


async def agent_waits_for_messages(settings: DeskSettings, number: int) -> None:
    log = job_dir(settings, number) / AGENT_LOG
    await eventually(
        lambda: log.read_text() if log.is_file() else "",
        lambda text: "scripted agent: waiting for" in text,
        "the agent to wait for its messages",
    )


def replies(fake: FakeDiscord, message: int) -> list[str]:
    return [reply["content"] for reply in fake.replies_to(message)]


async def test_the_requesters_message_reaches_the_agent_and_a_stranger_is_told_once(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    info = await desk.add_repo("acme/api", str(origin))
    command = agent_script(gates, "obey:1", "commit:Asked")
    fake = FakeDiscord()
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=command)
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(env, discord, tmp_path / "bot.log"),
    ):
        number, thread = await job_in_thread(fake, discord, "do as I say")
        await agent_waits_for_messages(settings, number)
        strangers = [
            await discord.gateway.said(thread, STRANGER_ID, "write:EVIL.md=pwned"),
            await discord.gateway.said(thread, STRANGER_ID, "write:EVIL.md=again"),
        ]
        from_a_bot = await discord.gateway.said(thread, OTHER_BOT, "write:BOT.md=x", bot=True)
        blank = await discord.gateway.said(thread, OWNER_ID, "  \n ")
        pinned = await discord.gateway.said(thread, OWNER_ID, "write:PIN.md=x", kind=PINNED)
        mine = await discord.gateway.said(thread, OWNER_ID, "write:ASKED.md=yes")
        await until(lambda: fake.reactions(mine) == ["✅"], "the message marked delivered")
        report = await awaited(desk.wait(number), "the job's report")

        [notice] = replies(fake, strangers[0])
        assert notice.startswith(f"<@{STRANGER_ID}> only the person who asked for job {number}")
        [reply] = fake.replies_to(strangers[0])
        assert [int(user) for user in reply["_allowed_mentions"]["users"]] == [STRANGER_ID]
        assert replies(fake, strangers[1]) == [], "a stranger was told twice"
        ignored = (*strangers, from_a_bot, blank, pinned)
        assert [fake.reactions(m) for m in ignored] == [[]] * len(ignored)
        assert [replies(fake, m) for m in (*ignored[1:], mine)] == [[]] * len(ignored)
        assert discord.rest.refused == []

    [message] = report.messages
    assert (message.text, message.by.id, message.surface) == (
        "write:ASKED.md=yes",
        f"discord:{OWNER_ID}",
        "discord",
    )
    assert message.delivered is not None and message.delivered.seam == MessageSeam.FILE
    assert (Path(info.path) / "ASKED.md").read_text() == "yes"
    assert not (Path(info.path) / "EVIL.md").exists()
    lines = (job_dir(settings, number) / MESSAGES_FILE).read_text().splitlines()
    assert [json.loads(line)["text"] for line in lines] == ["write:ASKED.md=yes"]


async def test_a_message_over_the_limit_is_refused_and_one_to_a_finished_job_continues_it(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    await host_policy(desk, message_chars=20)
    await desk.add_repo("acme/api", str(origin))
    gate = gates / "may-end"
    fake = FakeDiscord()
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=agent_script(gates, f"wait:{gate}"))
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(env, discord, tmp_path / "bot.log"),
    ):
        number, thread = await job_in_thread(fake, discord, "wait")
        long = await discord.gateway.said(thread, OWNER_ID, "x" * 21)
        await until(lambda: replies(fake, long), "the refusal of the long message")
        [why] = replies(fake, long)
        assert "21 characters, longer than the host's limit of 20" in why, why
        assert fake.reactions(long) == ["❌"]

        gate.touch()
        report = await awaited(desk.wait(number), "the job's report")
        assert report.messages == []
        heading = f"## Job {number} on "
        await until(
            lambda: any(m["content"].startswith(heading) for m in fake.in_channel(thread)),
            "the report in the thread",
        )
        # After the report, the owner's message continues the job in a new one, in this thread.
        late = await discord.gateway.said(thread, OWNER_ID, "and the docs")
        await until(lambda: replies(fake, late), "the continuation's reply")
        [said] = replies(fake, late)
        assert said.startswith(f"Job {number} has ended: job {number + 1} continues it here"), said
        assert fake.reactions(late) == ["📨"]
        continued = await awaited(desk.wait(number + 1), "the continuation's report")
        assert continued.continues == number, continued
        assert [message.text for message in continued.messages] == ["and the docs"]
        heading = f"## Job {number + 1} on "
        await until(
            lambda: any(m["content"].startswith(heading) for m in fake.in_channel(thread)),
            "the continuation's report in the thread",
        )
        stranger = await discord.gateway.said(thread, STRANGER_ID, "hello?")
        await until(lambda: replies(fake, stranger), "the stranger's notice")
        assert not fake.reactions(stranger)


async def test_a_message_written_while_the_bot_is_down_is_passed_on_once_when_it_is_back(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    info = await desk.add_repo("acme/api", str(origin))
    command = agent_script(gates, "obey:2", "commit:Asked twice")
    fake = FakeDiscord()
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=command)
    async with DiscordStandIn(fake) as discord:
        async with codedesk_discord(env, discord, tmp_path / "bot-1.log"):
            number, thread = await job_in_thread(fake, discord, "do as I say")
            await agent_waits_for_messages(settings, number)
        away = fake.said(thread, OWNER_ID, "append:ASKED.md=first\\n")  # no bot hears it
        async with codedesk_discord(env, discord, tmp_path / "bot-2.log"):
            await until(lambda: fake.reactions(away) == ["✅"], "the message read on coming back")
        async with codedesk_discord(env, discord, tmp_path / "bot-3.log"):
            back = await discord.gateway.said(thread, OWNER_ID, "append:ASKED.md=second\\n")
            await until(lambda: fake.reactions(back) == ["✅"], "the next message delivered")
            report = await awaited(desk.wait(number), "the job's report")
    assert [message.text for message in report.messages] == [
        "append:ASKED.md=first\\n",
        "append:ASKED.md=second\\n",
    ]
    assert (Path(info.path) / "ASKED.md").read_text() == "first\nsecond\n"
    lines = (job_dir(settings, number) / MESSAGES_FILE).read_text().splitlines()
    assert [json.loads(line)["seq"] for line in lines] == [1, 2]


async def test_the_bot_says_to_turn_the_message_content_intent_on_when_discord_refuses_it(
    settings: DeskSettings,
) -> None:
    async with DiscordStandIn(FakeDiscord(message_content=False)) as discord:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.protocol.stand_in.launch",
            discord.api_base,
            discord.gateway.url,
            "discord",
            env=bot_env(settings),
            cwd=ROOT,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        try:
            out, _ = await awaited(process.communicate(), "the bot to stop")
        finally:
            if process.returncode is None:  # it connected after all: stop it
                process.kill()
                await process.wait()
    said = out.decode()
    assert process.returncode == 1, said
    assert "Discord refused the bot's Message Content intent: enable it in the Developer" in said
    assert "Privileged Gateway Intents → Message Content Intent" in said
    assert "Traceback" not in said, said
