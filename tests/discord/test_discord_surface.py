"""DiscordSurface: cards posted once and closed in place, thread text, progress, the report."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from unittest.mock import MagicMock

import discord
import pytest
from temporalio.client import Client

from desk.config.settings import DeskSettings, load_settings
from desk.holds.approvals import (
    ApprovalOutcome,
    ApprovalRequest,
    OutcomeKind,
    SurfacePlace,
    WithdrawInput,
    approval_id,
)
from desk.payloads.jobs import JobOutcome, JobReport
from desk.payloads.surfaces import (
    CardRef,
    CloseCard,
    PostCard,
    ThreadProgress,
    ThreadReport,
    ThreadText,
)
from surfaces.clients.desk_client import DeskClient
from surfaces.discord.bot import CodedeskBot
from surfaces.discord.discord_surface import DiscordSurface
from surfaces.render.discord.embeds import PROGRESS_FOOTER
from surfaces.render.discord.message_text import MESSAGE_CHARS
from tests.helpers.waiting import until
from tests.surfaces.discord_driver import (
    OWNER_ID,
    STRANGER_ID,
    FakeDiscord,
    allowed_mentions_everywhere,
    custom_ids,
    discord_settings,
    enabled,
    start_bot,
)
from tests.surfaces.fake_discord import ADMINISTRATOR, ALL_PERMISSIONS, MANAGE_THREADS
from workflows.shipping.approval import Approval

IDENT = approval_id("job-4", "Bash", {"command": "git push"})
REQUEST = ApprovalRequest(
    tool="Bash", input={"command": "git push"}, scope="job-4", title="Job 4 wants Bash"
)


@pytest.fixture
async def bot(tmp_path: object) -> AsyncIterator[tuple[FakeDiscord, CodedeskBot]]:
    fake = FakeDiscord()
    settings = discord_settings(load_settings(home=str(tmp_path)))
    started = await start_bot(fake, settings, MagicMock(spec=Client))
    yield fake, started
    await started.close()


def requests(fake: FakeDiscord, method: str, path: str) -> list[object]:
    return [sent.json for sent in fake.sent if sent.method == method and sent.path == path]


async def test_a_card_is_posted_once_with_its_buttons_and_no_mentions(
    bot: tuple[FakeDiscord, CodedeskBot],
) -> None:
    fake, client = bot
    channel = fake.text_channel()
    card = PostCard(approval_id=IDENT, request=REQUEST, channel=str(channel))
    ref = await client.surface.post_card(card)
    again = await client.surface.post_card(card)  # a retried activity
    assert ref == again and ref.channel == str(channel)
    [body] = requests(fake, "POST", f"/channels/{channel}/messages")
    assert isinstance(body, dict)
    assert body["embeds"][0]["footer"]["text"] == IDENT
    assert custom_ids(body) == [f"codedesk:approve:{IDENT}", f"codedesk:decline:{IDENT}"]
    assert body["enforce_nonce"] is True and len(body["nonce"]) <= 25
    allowed_mentions_everywhere(fake)


async def test_closing_a_card_turns_its_buttons_off_and_shows_the_outcome_and_note(
    bot: tuple[FakeDiscord, CodedeskBot],
) -> None:
    fake, client = bot
    channel = fake.text_channel()
    ref = await client.surface.post_card(
        PostCard(approval_id=IDENT, request=REQUEST, channel=str(channel))
    )
    outcome = ApprovalOutcome(kind=OutcomeKind.WITHDRAWN, approval_id=IDENT, note="not needed")
    close = CloseCard(approval_id=IDENT, card=ref, request=REQUEST, outcome=outcome)
    await client.surface.close_card(close)
    await client.surface.close_card(close)  # safe twice
    card = fake.messages[int(ref.message)]
    assert not enabled(card)
    assert card["embeds"][0]["footer"]["text"] == "not needed"
    assert len(fake.in_channel(channel)) == 1
    allowed_mentions_everywhere(fake)


async def test_a_card_in_an_archived_thread_is_closed_and_the_thread_stays_open_for_the_job(
    bot: tuple[FakeDiscord, CodedeskBot],
) -> None:
    fake, client = bot
    thread = fake.thread(fake.text_channel())
    ref = await client.surface.post_card(
        PostCard(approval_id=IDENT, request=REQUEST, channel=str(thread))
    )
    fake.channels[thread]["thread_metadata"]["archived"] = True
    before = len(fake.sent)
    outcome = ApprovalOutcome(kind=OutcomeKind.EXPIRED, approval_id=IDENT)
    await client.surface.close_card(
        CloseCard(approval_id=IDENT, card=ref, request=REQUEST, outcome=outcome)
    )
    steps = [(s.method, s.path, (s.json or {}).get("archived")) for s in fake.sent[before:]]
    edit = ("PATCH", f"/channels/{thread}/messages/{ref.message}", None)
    assert steps == [edit, ("PATCH", f"/channels/{thread}", False), edit]
    assert not fake.archived(thread), "the job still runs: only its report archives"
    assert not enabled(fake.messages[int(ref.message)])


async def test_a_card_never_posted_is_never_closed(bot: tuple[FakeDiscord, CodedeskBot]) -> None:
    fake, client = bot
    before = len(fake.sent)
    outcome = ApprovalOutcome(kind=OutcomeKind.APPROVED, approval_id=IDENT)
    ref = CardRef(channel=str(fake.text_channel()), message="")
    await client.surface.close_card(
        CloseCard(approval_id=IDENT, card=ref, request=REQUEST, outcome=outcome)
    )
    assert fake.sent[before:] == []


async def test_failures_a_retry_cannot_fix_are_logged_others_are_raised(
    bot: tuple[FakeDiscord, CodedeskBot], caplog: pytest.LogCaptureFixture
) -> None:
    fake, client = bot
    channel = fake.text_channel()
    card = PostCard(approval_id=IDENT, request=REQUEST, channel=str(channel))
    fake.failures.append(("POST", rf"/channels/{channel}/messages", 403, 50013))
    with caplog.at_level(logging.WARNING):
        ref = await client.surface.post_card(card)
    assert ref == CardRef(channel=str(channel), message="")
    assert "Could not post the card" in caplog.text
    fake.failures.append(("POST", rf"/channels/{channel}/messages", 503, 0))
    with pytest.raises(discord.DiscordServerError):
        await client.surface.post_card(card)  # Temporal retries the activity
    assert (await client.surface.post_card(card)).message.isdigit()


async def test_long_text_is_posted_split_with_fences_whole(
    bot: tuple[FakeDiscord, CodedeskBot],
) -> None:
    fake, client = bot
    thread = fake.thread(fake.text_channel())
    block = "```sh\n" + "\n".join(f"echo {i} @everyone" for i in range(150)) + "\n```"
    text = "\n".join(["# Plan", "- first", block, "<@123> done", block])
    await client.surface.post_text(ThreadText(channel=str(thread), text=text))
    posted = [m["content"] for m in fake.in_channel(thread)]
    assert len(posted) >= 2
    for content in posted:
        assert len(content) <= MESSAGE_CHARS
        assert sum(line.startswith("```") for line in content.split("\n")) % 2 == 0
    assert posted[0].startswith("# Plan\n- first")
    assert any("\\<@\u200b123> done" in content for content in posted)
    allowed_mentions_everywhere(fake)


async def test_progress_is_one_message_edited_in_place_and_coalesced(
    bot: tuple[FakeDiscord, CodedeskBot],
) -> None:
    fake, client = bot
    thread = fake.thread(fake.text_channel())
    # The interval is driven by the test: a clock it sets, and a wait that ends when it says.
    surface = DiscordSurface(client, progress_interval=5.0)
    now = [1000.0]
    interval_over = asyncio.Event()

    async def wait_for_the_test(seconds: float) -> None:
        await interval_over.wait()
        now[0] += seconds

    surface.progress.clock = lambda: now[0]
    surface.progress.sleep = wait_for_the_test
    say = surface.set_progress
    await say(ThreadProgress(channel=str(thread), text="Cutting a worktree"))
    [message] = fake.in_channel(thread)
    edits = f"/channels/{thread}/messages/{message['id']}"
    await say(ThreadProgress(channel=str(thread), text="The agent works"))
    await say(ThreadProgress(channel=str(thread), text="The agent runs tests"))
    assert requests(fake, "PATCH", edits) == []  # within the interval: coalesced
    interval_over.set()
    await surface.progress.settle(thread)  # the interval ends: one edit shows the latest
    [edit] = requests(fake, "PATCH", edits)
    assert isinstance(edit, dict) and edit["embeds"][0]["description"] == "The agent runs tests"
    now[0] += 5.0
    await say(ThreadProgress(channel=str(thread), text="Integrating"))  # interval over: at once
    assert len(requests(fake, "PATCH", edits)) == 2
    assert [m["id"] for m in fake.in_channel(thread)] == [message["id"]]
    assert fake.messages[int(message["id"])]["embeds"][0]["footer"]["text"] == PROGRESS_FOOTER
    allowed_mentions_everywhere(fake)


async def test_after_a_restart_the_progress_message_is_found_and_edited(
    bot: tuple[FakeDiscord, CodedeskBot], tmp_path: object
) -> None:
    fake, client = bot
    thread = fake.thread(fake.text_channel())
    await client.surface.set_progress(ThreadProgress(channel=str(thread), text="before"))
    fake.message(thread, content="someone else's message")
    settings = discord_settings(load_settings(home=str(tmp_path)))
    again = await start_bot(fake, settings, MagicMock(spec=Client))
    await again.surface.set_progress(ThreadProgress(channel=str(thread), text="after"))
    await again.close()
    progress = [m for m in fake.in_channel(thread) if m["embeds"]]
    assert len(progress) == 1
    assert progress[0]["embeds"][0]["description"] == "after"


async def test_the_report_is_posted_once_after_the_last_progress_then_archived(
    bot: tuple[FakeDiscord, CodedeskBot],
) -> None:
    fake, client = bot
    thread = fake.thread(fake.text_channel())
    channel = str(thread)
    await client.surface.set_progress(ThreadProgress(channel=channel, text="one"))
    await client.surface.set_progress(ThreadProgress(channel=channel, text="last words"))
    report = JobReport(
        number=9, repo="acme/api", outcome=JobOutcome.INTEGRATED, output="ok\n" * 1500
    )
    await client.surface.post_report(ThreadReport(channel=channel, report=report))
    assert fake.archived(thread)
    posted = len(fake.in_channel(thread))
    await client.surface.post_report(ThreadReport(channel=channel, report=report))  # a retry
    assert len(fake.in_channel(thread)) == posted
    [progress, *texts] = fake.in_channel(thread)
    assert progress["embeds"][0]["description"] == "last words"  # shown before the report
    assert texts[0]["content"].startswith("## Job 9 on `acme/api`: integrated")
    assert len(texts) > 2 and all(len(m["content"]) <= MESSAGE_CHARS for m in texts)
    assert fake.archived(thread)
    allowed_mentions_everywhere(fake)


def locked_thread(fake: FakeDiscord) -> tuple[int, int]:
    """A channel and its thread, archived and locked by a moderator; the bot lacks Manage
    Threads, so the thread refuses its posts (Discord's 50083)."""
    fake.bot_permissions = ALL_PERMISSIONS & ~(ADMINISTRATOR | MANAGE_THREADS)
    channel = fake.text_channel()
    thread = fake.thread(channel)
    fake.channels[thread]["thread_metadata"].update(archived=True, locked=True)
    return channel, thread


REPORT = JobReport(number=12, repo="acme/api", outcome=JobOutcome.INTEGRATED, output="done")


async def test_a_report_its_locked_thread_refuses_goes_to_the_requester_never_another_channel(
    bot: tuple[FakeDiscord, CodedeskBot],
) -> None:
    # pi-roundtable-coding: a report sent away from the calling channel goes to that person's
    # own direct channel; never to another channel, where others would read it.
    fake, client = bot
    channel, thread = locked_thread(fake)
    told = ThreadReport(channel=str(thread), report=REPORT, requester=f"discord:{OWNER_ID}")
    await client.surface.post_report(told)
    await client.surface.post_report(told)  # a retry posts nothing twice
    assert fake.in_channel(channel) == [] and fake.in_channel(thread) == []
    direct = fake.dm(OWNER_ID)
    [report] = [m["content"] for m in fake.in_channel(direct)]
    assert report.startswith("## Job 12 on `acme/api`: integrated")
    assert f"the job you asked for in <#{thread}>, which refused it" in report
    assert "never to another channel" in report
    allowed_mentions_everywhere(fake)


@pytest.mark.parametrize("requester", ["alice", "discord:", "", f"discord:{STRANGER_ID}"])
async def test_a_report_nobody_can_take_is_shown_nowhere_and_the_log_says_why(
    bot: tuple[FakeDiscord, CodedeskBot], caplog: pytest.LogCaptureFixture, requester: str
) -> None:
    # A requester who is no Discord user, or whose direct messages refuse the bot: the report
    # is not posted in another channel; the bot's log says why and where it is.
    fake, client = bot
    fake.closed_dms.add(STRANGER_ID)
    channel, thread = locked_thread(fake)
    with caplog.at_level(logging.WARNING):
        await client.surface.post_report(
            ThreadReport(channel=str(thread), report=REPORT, requester=requester)
        )
    assert fake.in_channel(channel) == [] and fake.in_channel(thread) == []
    assert all(fake.in_channel(ident) == [] for ident in fake.channels)
    assert "Job 12's report was not shown" in caplog.text, caplog.text
    assert "never goes to another channel" in caplog.text
    assert "`codedesk show 12` has it" in caplog.text


# The bot's worker, on a real Temporal server


async def test_a_card_requested_while_the_bot_was_down_is_posted_when_it_comes_back(
    desk: DeskClient, settings: DeskSettings
) -> None:
    config = discord_settings(settings)
    queue = f"discord-{uuid.uuid4().hex[:8]}"
    fake = FakeDiscord()
    thread = fake.thread(fake.text_channel())
    call = {"command": "git push origin main"}
    ident = approval_id("job-77", "Bash", call)
    request = ApprovalRequest(
        tool="Bash",
        input=call,
        scope="job-77",
        owners=[f"discord:{OWNER_ID}"],
        place=SurfacePlace(queue=queue, channel=str(thread)),
    )
    handle = await desk.client.start_workflow(
        Approval.run, request, id=ident, task_queue=config.task_queue
    )
    await asyncio.sleep(1)  # the bot is down: the card waits in the outbox
    assert fake.card(ident) is None

    bot = await start_bot(fake, config, desk.client, queue=queue, host_activities=True)
    try:
        await until(lambda: fake.card(ident) is not None, "the card from the outbox")
        card = fake.card(ident)
        assert card is not None and enabled(card) and card["channel_id"] == str(thread)
        await handle.signal(Approval.withdraw, WithdrawInput(reason="the job has ended"))
        assert (await handle.result()).kind == OutcomeKind.WITHDRAWN
        await until(lambda: not enabled(card), "the card's buttons disabled")
    finally:
        await bot.close()
    assert not enabled(card)
    assert card["embeds"][0]["footer"]["text"] == "the job has ended"
    allowed_mentions_everywhere(fake)
