"""The bot process SIGKILLed with a card open, or as it posts one: after it is back, one card,
a press on it counts once, and it closes once.

The bot runs as a process of its own on the offline harness (tests/surfaces/bot_process.py):
the test keeps the fake Discord (Discord keeps its messages while the bot is gone), the
worker is a `codedesk worker` process, and every outcome is read from outside: the fake
Discord's messages, the CLI's `--json`, the approval's result, the clone.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from desk.approvals import Decision, OutcomeKind
from desk.names import outbox_workflow_id
from desk.settings import DeskSettings
from surfaces.desk_client import DeskClient
from surfaces.discord.custom_ids import CardKey, parse
from surfaces.discord.press import MAY_NOT
from tests.cli_helpers import read_pid, run_cli, settings_env, shown
from tests.conftest import git
from tests.crash.conftest import (
    REPO,
    ResumeClock,
    assert_a_later_job_runs,
    assert_no_leftovers,
)
from tests.crash.test_approval_recovery import hold_agent, open_approval
from tests.processes import StartWorker
from tests.surfaces.discord_driver import (
    GUILD_ID,
    OWNER_ID,
    OWNER_ROLE_ID,
    STRANGER_ID,
    FakeDiscord,
    allowed_mentions_everywhere,
    custom_ids,
    enabled,
)
from tests.surfaces.discord_wire import BotProcess, DiscordServer, bot_process
from tests.waiting import awaited, until
from workflows.approval import Approval
from workflows.outbox import Outbox


def bot_env(settings: DeskSettings, **extra: str) -> dict[str, str]:
    """The bot process's environment: this desk, the fake guild's owners, a quick pace."""
    return settings_env(
        settings,
        CODEDESK_DISCORD_OWNER_IDS=str(OWNER_ID),
        CODEDESK_DISCORD_OWNER_ROLE_IDS=str(OWNER_ROLE_ID),
        CODEDESK_DISCORD_GUILD_IDS=str(GUILD_ID),
        CODEDESK_DISCORD_PROGRESS_INTERVAL="200ms",
        **extra,
    )


async def test_the_bot_process_killed_with_a_card_open_a_press_on_the_new_one_counts_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    env = settings_env(settings)
    start_worker(env)
    await DeskClient(client, settings).add_repo(REPO, str(origin))
    bot = bot_env(settings, CODEDESK_AGENT_COMMAND=hold_agent(tmp_path))
    queue = f"discord-{uuid.uuid4().hex[:8]}"
    fake = FakeDiscord()
    channel = fake.text_channel()

    async with DiscordServer(fake) as discord:
        async with bot_process(bot, discord, queue, tmp_path / "bot-1.log") as first:
            thread, number = await start_job(first, fake, channel)
            ident = await open_approval(client)
            await until(lambda: fake.card(ident) is not None, "the card in the job's thread")
            # Killed idle, the card posted and known as such (killed mid-post: the next test).
            outbox_id = outbox_workflow_id(queue, str(thread))
            outbox = client.get_workflow_handle_for(Outbox.run, outbox_id)

            async def idle() -> bool:
                posted = ident in (await outbox.query(Outbox.current)).cards
                return posted and not (await outbox.describe()).raw_description.pending_activities

            await until(idle, "the card recorded as posted, no post in flight")
            await first.kill()
        card = fake.card(ident)
        assert card is not None and enabled(card) and card["channel_id"] == str(thread)
        approve = CardKey.of(ident).custom_id(Decision.APPROVE)

        resume_clock.restarted()
        async with bot_process(bot, discord, queue, tmp_path / "bot-2.log") as again:
            refused = fake.press(int(card["id"]), approve, STRANGER_ID)
            await again.deliver(refused)
            assert fake.told(refused["token"]) == [MAY_NOT]
            assert enabled(card), card
            handle = client.get_workflow_handle_for(Approval.run, ident)
            state = await handle.query(Approval.current)
            assert state.outcome is None, state
            assert [ignored.by.id for ignored in state.ignored] == [f"discord:{STRANGER_ID}"]

            press = fake.press(int(card["id"]), approve, OWNER_ID)
            await again.deliver(press)
            assert fake.told(press["token"]) == ["Approved."]
            await DeskClient(client, settings).wait(number)
            await resume_clock.report_job(client, number)
            await until(lambda: reports(fake, thread, number), "the job's report in its thread")
            await again.close()

    shown_job = await run_cli(env, "show", str(number), "--json", cwd=tmp_path)
    assert shown_job.returncode == 0, shown(shown_job)
    report = json.loads(shown_job.stdout)["job"]["report"]
    assert report["outcome"] == "integrated", shown(shown_job)
    outcome = await handle.result()
    assert outcome.kind == OutcomeKind.APPROVED, outcome
    assert outcome.by is not None and outcome.by.id == f"discord:{OWNER_ID}", outcome
    assert not enabled(card) and card["embeds"][0]["footer"]["text"].startswith("Approved")
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines().count("after the push") == 1
    assert (clone / "pushed.txt").read_text() == "yes"
    assert (tmp_path / "runs").read_text().count("\n") == 1, "the agent ran more than once"
    assert len(reports(fake, thread, number)) == 1, fake.in_channel(thread)
    assert cards(fake, thread) == [card]
    allowed_mentions_everywhere(fake)
    assert_no_leftovers(clone, read_pid(tmp_path / "agent.pid") or 0)
    await assert_a_later_job_runs(env, tmp_path)


@pytest.mark.slow  # the card's post is retried when its step times out (a minute)
async def test_the_bot_process_killed_as_it_posts_a_card_the_new_one_keeps_that_one_card(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    """Discord made the card, the bot died before it heard so: the new bot's retry of the post
    finds that card (no second one), and closes it when the owner approves from the CLI."""
    env = settings_env(settings)
    start_worker(env)
    await DeskClient(client, settings).add_repo(REPO, str(origin))
    bot = bot_env(settings, CODEDESK_AGENT_COMMAND=hold_agent(tmp_path))
    queue = f"discord-{uuid.uuid4().hex[:8]}"
    fake = FakeDiscord()
    channel = fake.text_channel()

    async with DiscordServer(fake) as discord:
        posted = discord.withhold(posts_a_card)
        async with bot_process(bot, discord, queue, tmp_path / "bot-1.log") as first:
            thread, number = await start_job(first, fake, channel)
            ident = await open_approval(client)
            await awaited(posted.wait(), "the card's post to reach Discord")
            await first.kill()
        [card] = cards(fake, thread)
        assert enabled(card), card

        resume_clock.restarted()
        async with bot_process(bot, discord, queue, tmp_path / "bot-2.log") as again:
            approved = await run_cli(env, "approve", ident, cwd=tmp_path)
            assert approved.returncode == 0, shown(approved)
            await DeskClient(client, settings).wait(number)
            await resume_clock.report_job(client, number)

            def closed() -> bool:
                last = fake.card(ident)
                return last is not None and not enabled(last)

            await until(
                lambda: closed() and reports(fake, thread, number),
                "the approval's card closed and the job's report in its thread",
            )
            await again.close()

    outcome = await client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.APPROVED, outcome
    assert cards(fake, thread) == [card], "the new bot posted the card again"
    assert card["embeds"][0]["footer"]["text"].startswith("Approved"), card["embeds"][0]
    assert len(reports(fake, thread, number)) == 1, fake.in_channel(thread)
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines().count("after the push") == 1
    allowed_mentions_everywhere(fake)
    assert_no_leftovers(clone, read_pid(tmp_path / "agent.pid") or 0)
    await assert_a_later_job_runs(env, tmp_path)


async def start_job(bot: BotProcess, fake: FakeDiscord, channel: int) -> tuple[int, int]:
    """`/task` by the owner in `channel`: the job's thread and number, from the bot's answer."""
    command = fake.command("task", OWNER_ID, channel, repo=REPO, task="push it")
    await bot.deliver(command)
    [answer] = fake.in_channel(channel)
    found = re.search(r"Job \*\*(\d+)\*\* is running", answer["content"])
    assert found, answer["content"]
    return int(answer["id"]), int(found[1])


def posts_a_card(method: str, path: str, body: Any) -> bool:
    """The bot's request that posts an approval card (its buttons carry the approval)."""
    ids = custom_ids(body) if method == "POST" and isinstance(body, dict) else []
    return any(parse(custom_id) is not None for custom_id in ids)


def cards(fake: FakeDiscord, thread: int) -> list[dict[str, Any]]:
    """The approval cards in the thread, oldest first."""
    return [m for m in fake.in_channel(thread) if any(map(parse, custom_ids(m)))]


def reports(fake: FakeDiscord, thread: int, number: int) -> list[dict[str, Any]]:
    return [m for m in fake.in_channel(thread) if m["content"].startswith(f"## Job {number} ")]
