"""The bot process SIGKILLed with a card open, as it posts one, or in the middle of a press:
after a new bot process is back there is one card, the owner's answer counts once, the card
closes, and the job integrates once.

The bot runs as a process of its own on the offline harness (tests/surfaces/bot_process.py):
the test keeps the fake Discord (Discord keeps its messages while the bot is gone), the
worker is a `codedesk worker` process, and every outcome is read from outside: the fake
Discord's messages, the CLI's `--json`, the approval's result, the clone.
"""

from __future__ import annotations

import json
import re
import uuid
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType, TimeoutType
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, OutcomeKind
from desk.names import outbox_workflow_id
from surfaces.clients.desk_client import DeskClient
from surfaces.discord.interactions.custom_ids import CardKey, parse
from surfaces.discord.interactions.press import MAY_NOT, NO_LONGER_ACTIVE
from tests.crash.crashes import REPO, ResumeClock, assert_a_later_job_runs, assert_no_leftovers
from tests.helpers.agent_pids import agent_tag, job_runs, tagged_pids
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from tests.helpers.holds.approval_recovery import hold_agent, open_approval
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, until
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
from workflows.delivery.outbox import Outbox
from workflows.shipping.approval import Approval


@dataclass
class Desk:
    """A worker process with the repository added, and what a bot process of it needs."""

    settings: DeskSettings
    client: Client
    tmp_path: Path
    env: dict[str, str]
    """The CLI's environment."""
    bot_env: dict[str, str]
    """The bot process's: this desk, the fake guild's owners, a quick pace, a holding agent."""
    queue: str
    fake: FakeDiscord
    channel: int

    def bot(self, discord: DiscordServer, name: str) -> AbstractAsyncContextManager[BotProcess]:
        return bot_process(self.bot_env, discord, self.queue, self.tmp_path / f"{name}.log")

    async def start_job(self, bot: BotProcess) -> tuple[int, int]:
        """`/task` by the owner: the job's thread and number, from the bot's answer."""
        command = self.fake.command("task", OWNER_ID, self.channel, repo=REPO, task="push it")
        await bot.deliver(command)
        [answer] = self.fake.in_channel(self.channel)
        found = re.search(r"Job \*\*(\d+)\*\* is running", answer["content"])
        assert found, answer["content"]
        return int(answer["id"]), int(found[1])

    def outbox_id(self, thread: int) -> str:
        return outbox_workflow_id(self.queue, str(thread))

    async def card_posted_and_idle(self, thread: int, ident: str) -> None:
        """Wait until the thread's outbox knows the card as posted and has no post in flight."""
        outbox = self.client.get_workflow_handle_for(Outbox.run, self.outbox_id(thread))

        async def idle() -> bool:
            posted = ident in (await outbox.query(Outbox.current)).cards
            return posted and not (await outbox.describe()).raw_description.pending_activities

        await until(idle, "the card recorded as posted, no post in flight")

    async def card_open(self, bot: BotProcess) -> tuple[int, int, str]:
        """A job on `bot` whose agent waits on a hold, its card posted and nothing in flight:
        the job's thread, its number and the approval's id."""
        thread, number = await self.start_job(bot)
        ident = await open_approval(self.client)
        await self.card_posted_and_idle(thread, ident)
        return thread, number, ident

    async def integrated_once(self, number: int, thread: int, card: dict[str, Any]) -> None:
        """The job integrated once, its held call ran once, the one card closed as approved,
        one report in the thread, no mention anywhere, nothing left behind, a later job runs."""
        shown_job = await run_cli(self.env, "show", str(number), "--json", cwd=self.tmp_path)
        assert shown_job.returncode == 0, shown(shown_job)
        report = json.loads(shown_job.stdout)["job"]["report"]
        assert report["outcome"] == "integrated", shown(shown_job)
        clone = self.settings.shelf_dir / "acme" / "api"
        assert git(clone, "log", "--format=%s").splitlines().count("after the push") == 1
        assert (clone / "pushed.txt").read_text() == "yes"
        assert len(job_runs(self.settings.home, number)) == 1, "the agent ran again"
        assert cards(self.fake, thread) == [card], "the card was posted again"
        assert not enabled(card), card
        assert card["embeds"][0]["footer"]["text"].startswith("Approved"), card["embeds"][0]
        assert len(reports(self.fake, thread, number)) == 1, self.fake.in_channel(thread)
        allowed_mentions_everywhere(self.fake)
        assert_no_leftovers(clone, *tagged_pids(agent_tag(self.tmp_path)))
        await assert_a_later_job_runs(self.env, self.tmp_path)


@pytest.fixture
async def desk(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
) -> Desk:
    # The worker and the bot share the owners, as docker-compose.yml gives them: who may
    # approve is the worker's host policy, who may use the bot's commands the bot's setting.
    owners = {
        "CODEDESK_DISCORD_OWNER_IDS": str(OWNER_ID),
        "CODEDESK_DISCORD_OWNER_ROLE_IDS": str(OWNER_ROLE_ID),
    }
    env = settings_env(settings, **owners)
    start_worker(env)
    await DeskClient(client, settings).add_repo(REPO, str(origin))
    bot_env = settings_env(
        settings,
        **owners,
        CODEDESK_DISCORD_GUILD_IDS=str(GUILD_ID),
        CODEDESK_DISCORD_PROGRESS_INTERVAL="200ms",
        CODEDESK_AGENT_COMMAND=hold_agent(tmp_path),
    )
    queue = f"discord-{uuid.uuid4().hex[:8]}"
    fake = FakeDiscord()
    return Desk(settings, client, tmp_path, env, bot_env, queue, fake, fake.text_channel())


async def test_the_bot_process_killed_with_a_card_open_a_press_on_the_new_one_counts_once(
    desk: Desk, client: Client, resume_clock: ResumeClock
) -> None:
    fake = desk.fake
    async with DiscordServer(fake) as discord:
        async with desk.bot(discord, "bot-1") as first:
            thread, number, ident = await desk.card_open(first)
            await first.kill()
        card = fake.card(ident)
        assert card is not None and enabled(card) and card["channel_id"] == str(thread)
        approve = CardKey.of(ident).custom_id(Decision.APPROVE)

        resume_clock.restarted()
        async with desk.bot(discord, "bot-2") as again:
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
            await DeskClient(client, desk.settings).wait(number)
            await resume_clock.report_job(client, number)
            await until(lambda: reports(fake, thread, number), "the job's report in its thread")
            await again.close()

    outcome = await handle.result()
    assert outcome.kind == OutcomeKind.APPROVED, outcome
    assert outcome.by is not None and outcome.by.id == f"discord:{OWNER_ID}", outcome
    await desk.integrated_once(number, thread, card)


async def test_the_bot_process_killed_as_it_posts_a_card_the_new_one_keeps_that_one_card(
    desk: Desk, client: Client, resume_clock: ResumeClock
) -> None:
    """Discord made the card, the bot died before it heard so: the new bot's retry of the post
    finds that card (no second one), and closes it when the owner approves from the CLI."""
    fake = desk.fake
    async with DiscordServer(fake) as discord:
        posted = discord.withhold(posts_a_card)
        async with desk.bot(discord, "bot-1") as first:
            thread, number = await desk.start_job(first)
            ident = await open_approval(client)
            await awaited(posted.wait(), "the card's post to reach Discord")
            await first.kill()
        [card] = cards(fake, thread)
        assert enabled(card), card

        resume_clock.restarted()
        async with desk.bot(discord, "bot-2") as again:
            approved = await run_cli(desk.env, "approve", ident, cwd=desk.tmp_path)
            assert approved.returncode == 0, shown(approved)
            await DeskClient(client, desk.settings).wait(number)
            await resume_clock.report_job(client, number)

            def closed() -> bool:
                last = fake.card(ident)
                return last is not None and not enabled(last)

            await until(
                lambda: closed() and reports(fake, thread, number),
                "the approval's card closed and the job's report in its thread",
            )
            await again.close()
        await retried_within_heartbeat(client, desk.outbox_id(thread), resume_clock)

    outcome = await client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.APPROVED, outcome
    await desk.integrated_once(number, thread, card)


async def test_the_bot_process_killed_mid_press_the_answer_counted_once_a_second_press_is_told(
    desk: Desk, client: Client, resume_clock: ResumeClock
) -> None:
    """The owner's press reached the approval, and the bot died as it went to close the card
    (the pressed card's edit and the outbox's step closing it both in hand): the answer stands
    (once), a second press on the new bot is told how it ended, and the new bot closes the
    card as soon as the dead one's step misses its heartbeats."""
    fake = desk.fake
    async with DiscordServer(fake) as discord:
        async with desk.bot(discord, "bot-1") as first:
            thread, number, ident = await desk.card_open(first)
            card = fake.card(ident)
            assert card is not None and enabled(card), card
            approve = CardKey.of(ident).custom_id(Decision.APPROVE)
            press = fake.press(int(card["id"]), approve, OWNER_ID)
            closing = f"/{press['token']}/messages/@original"
            reached = discord.withhold(
                lambda method, path, body: method == "PATCH" and path.endswith(closing),
                done_in_discord=False,
            )
            the_card = f"/channels/{thread}/messages/{card['id']}"
            outbox_closing = discord.withhold(
                lambda method, path, body: method == "PATCH" and path == the_card,
                done_in_discord=False,
            )
            await first.send(press)
            await awaited(reached.wait(), "the press to be answered and the bot to close its card")
            await awaited(outbox_closing.wait(), "the outbox's step closing the card on the bot")
            await first.kill()
        assert fake.told(press["token"]) == [], "the presser heard back from a bot that died"
        handle = client.get_workflow_handle_for(Approval.run, ident)
        settled = await handle.query(Approval.current)
        assert settled.outcome is not None and settled.outcome.kind == OutcomeKind.APPROVED

        resume_clock.restarted()
        async with desk.bot(discord, "bot-2") as again:
            second = fake.press(int(card["id"]), approve, OWNER_ID)
            await again.deliver(second)
            [told] = fake.told(second["token"])
            assert told.startswith(f"{NO_LONGER_ACTIVE}: it was approved by "), told
            await DeskClient(client, desk.settings).wait(number)
            await resume_clock.report_job(client, number)
            await until(lambda: reports(fake, thread, number), "the job's report in its thread")
            await again.close()
        await retried_within_heartbeat(client, desk.outbox_id(thread), resume_clock)

    outcome = await handle.result()
    assert outcome == settled.outcome, "the second press changed the approval's outcome"
    assert outcome.by is not None and outcome.by.id == f"discord:{OWNER_ID}", outcome
    await desk.integrated_once(number, thread, card)


@dataclass
class Retry:
    """A surface step of the outbox that was tried again: what ended its last failed try (a
    heartbeat timeout: the dead bot stopped beating; a start-to-close one: a minute passed),
    and when the try that completed it started."""

    step: str
    ended_by: str
    started: datetime


async def steps_retried(client: Client, outbox_id: str) -> list[Retry]:
    names: dict[int, str] = {}
    retried: list[Retry] = []
    async for event in client.get_workflow_handle(outbox_id).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled = event.activity_task_scheduled_event_attributes
            names[event.event_id] = scheduled.activity_type.name
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            started = event.activity_task_started_event_attributes
            if started.attempt > 1:
                failure = started.last_failure
                ended_by = (
                    TimeoutType.Name(failure.timeout_failure_info.timeout_type)
                    if failure.HasField("timeout_failure_info")
                    else failure.message
                )
                moment = event.event_time.ToDatetime(tzinfo=UTC)
                retried.append(Retry(names[started.scheduled_event_id], ended_by, moment))
    return retried


async def retried_within_heartbeat(
    client: Client, outbox_id: str, resume_clock: ResumeClock
) -> None:
    """The step the killed bot had in hand was retried by the new bot once the dead one missed
    its heartbeats (`SURFACE_HEARTBEAT_TIMEOUT`), not after the step's minute: the thread went
    on."""
    retried = await steps_retried(client, outbox_id)
    assert retried, "no surface step of the killed bot was retried"
    assert {retry.ended_by for retry in retried} == {"TIMEOUT_TYPE_HEARTBEAT"}, retried
    for retry in retried:
        resume_clock.note(
            f"{resume_clock.case}: the killed bot's {retry.step} was tried again "
            f"{resume_clock.since_restart(retry.started):.1f} s after the restart"
        )


def posts_a_card(method: str, path: str, body: Any) -> bool:
    """The bot's request that posts an approval card (its buttons carry the approval)."""
    ids = custom_ids(body) if method == "POST" and isinstance(body, dict) else []
    return any(parse(custom_id) is not None for custom_id in ids)


def cards(fake: FakeDiscord, thread: int) -> list[dict[str, Any]]:
    """The approval cards in the thread, oldest first."""
    return [m for m in fake.in_channel(thread) if any(map(parse, custom_ids(m)))]


def reports(fake: FakeDiscord, thread: int, number: int) -> list[dict[str, Any]]:
    return [m for m in fake.in_channel(thread) if m["content"].startswith(f"## Job {number} ")]
