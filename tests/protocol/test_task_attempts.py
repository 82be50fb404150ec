"""Several attempts at one task from Discord (issue 48), with the real bot process on Discord's
protocol: `/task` takes `agents`, `attempts` and `pick_first_passing`, with the CLI's refusals;
the job's thread gets the comparison card, a row per attempt and a button each; a stranger's
press is refused to them alone, a press after the bot restarted picks, the picked attempt lands
and the card closes saying who picked which; Discard all drops them all."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from desk.config.settings import DeskSettings
from desk.payloads.conversation.review_payloads import ReviewVerdict
from desk.payloads.jobs import JobInput, JobOutcome
from desk.records.repo_setup import SetRepoSetup
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from surfaces.discord.interactions.pick_buttons import pick_id
from surfaces.discord.review.review_ids import ReviewKey
from tests.helpers.repos import git
from tests.helpers.surfaces.attempt_agents import attempt_file, writes_its_own_file
from tests.helpers.surfaces.review_cards import card_posted
from tests.helpers.waiting import awaited, eventually, until
from tests.protocol.stand_in.bot import bot_env, codedesk_discord
from tests.protocol.stand_in.server import DiscordStandIn
from tests.surfaces.fake_discord import OWNER_ID, STRANGER_ID, FakeDiscord, custom_ids

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


@contextlib.asynccontextmanager
async def attempts_bot(
    settings: DeskSettings, gates: Path, tmp_path: Path
) -> AsyncIterator[tuple[FakeDiscord, DiscordStandIn]]:
    """The real bot on Discord's stand-in, whose jobs' agents each write a file of their own."""
    fake = FakeDiscord()
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=writes_its_own_file(gates))
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(env, discord, tmp_path / "bot.log"),
    ):
        yield fake, discord


def card_of(fake: FakeDiscord, thread: int, number: int) -> dict[str, Any] | None:
    """Job `number`'s comparison card in `thread` (by its Discard all button)."""
    found = [m for m in fake.in_channel(thread) if pick_id(number, "") in custom_ids(m)]
    return found[-1] if found else None


def buttons(card: dict[str, Any]) -> dict[str, bool]:
    """The card's buttons, by label: whether each is enabled."""
    return {
        child["label"]: not child.get("disabled", False)
        for row in card["components"]
        for child in row["components"]
    }


def told_privately(fake: FakeDiscord, token: str) -> list[str]:
    """What the presser `token` was told in messages only they see."""
    return [
        m["content"] for m in fake.messages.values() if m.get("_token") == token and m["flags"] & 64
    ]


async def two_attempts(
    fake: FakeDiscord, discord: DiscordStandIn, **options: Any
) -> tuple[int, int]:
    """/task with two attempts (and `options`) in a new channel: the job's number and its
    thread."""
    channel = fake.text_channel()
    ask = fake.command(
        "task", OWNER_ID, channel, repo=REPO, task="add a file", attempts=2, **options
    )
    token = await discord.interact(ask)
    said = await eventually(
        lambda: " ".join(fake.told(token)), lambda told: "is running" in told, "the job's answer"
    )
    found = re.search(r"Job \*\*(\d+)\*\* is running", said)
    assert found, said
    return int(found[1]), int(fake.in_channel(channel)[0]["id"])


async def test_the_comparison_card_shows_the_attempts_and_a_press_after_a_restart_picks_one(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    await RepoSetupClient(desk.client, desk.settings).configure(
        SetRepoSetup(repo=REPO, check="true", check_retries=0)
    )
    fake = FakeDiscord()
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=writes_its_own_file(gates))
    async with DiscordStandIn(fake) as discord:
        async with codedesk_discord(env, discord, tmp_path / "bot.log"):
            number, thread = await two_attempts(fake, discord)
            card = await until(lambda: card_of(fake, thread, number), "the comparison card")
            [embed] = card["embeds"]
            rows = embed["description"]
            for label, attempt in (("a", number + 1), ("b", number + 2)):
                assert f"{label}: job {attempt}" in rows, rows
            assert rows.count("check passed") == 2, rows
            assert rows.count("1 file changed, 1 insertion(+)") == 2, rows
            assert buttons(card) == {"Pick a": True, "Pick b": True, "Discard all": True}

            stranger = await discord.interact(
                fake.press(int(card["id"]), pick_id(number, "a"), STRANGER_ID)
            )
            await until(lambda: told_privately(fake, stranger), "the stranger's refusal")
            [refusal] = told_privately(fake, stranger)
            assert "may not pick among job" in refusal, refusal
            assert buttons(fake.messages[int(card["id"])])["Pick a"], "a refusal closed the card"

        async with codedesk_discord(env, discord, tmp_path / "bot-again.log"):
            mine = await discord.interact(
                fake.press(int(card["id"]), pick_id(number, "b"), OWNER_ID)
            )
            await until(lambda: told_privately(fake, mine), "the pick's answer")
            assert told_privately(fake, mine) == [
                f"You picked attempt b (job {number + 2}): it integrates now."
            ]
            closed = fake.messages[int(card["id"])]
            assert not any(buttons(closed).values()), closed
            assert closed["embeds"][0]["footer"]["text"].startswith(
                f"Attempt b (job {number + 2}) was picked by user{OWNER_ID}"
            )
            again = await discord.interact(
                fake.press(int(card["id"]), pick_id(number, "a"), OWNER_ID)
            )
            await until(lambda: told_privately(fake, again), "the later press's answer")
            [later] = told_privately(fake, again)
            assert "made first by" in later, later
            report = await awaited(desk.wait(number), "the job's report")
            assert discord.rest.refused == []

    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (clone / attempt_file(number + 2)).exists()
    assert not (clone / attempt_file(number + 1)).exists()
    assert [
        b for b in git(clone, "branch", "--format=%(refname:short)").split() if b != "main"
    ] == []


async def test_discard_all_on_the_card_drops_every_attempt_and_closes_the_card(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    async with attempts_bot(settings, gates, tmp_path) as (fake, discord):
        number, thread = await two_attempts(fake, discord)
        card = await until(lambda: card_of(fake, thread, number), "the comparison card")
        press = fake.press(int(card["id"]), pick_id(number, ""), OWNER_ID)
        mine = await discord.interact(press)
        await until(lambda: told_privately(fake, mine), "the discard's answer")
        assert told_privately(fake, mine) == ["You discarded every attempt: nothing lands."]
        closed = fake.messages[int(card["id"])]
        assert not any(buttons(closed).values()), closed
        assert closed["embeds"][0]["footer"]["text"] == (
            f"Every attempt was discarded by user{OWNER_ID}: nothing lands."
        )
        report = await awaited(desk.wait(number), "the job's report")
        assert discord.rest.refused == []

    assert report.attempts is not None and report.attempts.picked == ""
    for attempt in (number + 1, number + 2):
        assert not (clone / attempt_file(attempt)).exists()
    branches = git(clone, "branch", "--format=%(refname:short)").split()
    assert [name for name in branches if name.startswith("worker")] == [], branches


async def test_a_pick_made_elsewhere_closes_the_card_when_the_report_comes(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    async with attempts_bot(settings, gates, tmp_path) as (fake, discord):
        number, thread = await two_attempts(fake, discord)
        card = await until(lambda: card_of(fake, thread, number), "the comparison card")
        await desk.pick(number, "a")  # an owner's pick from the CLI
        await awaited(desk.wait(number), "the job's report")
        await report_posted(fake, thread, number)
        closed = fake.messages[int(card["id"])]
        assert not any(buttons(closed).values()), closed
        footer = closed["embeds"][0]["footer"]["text"]
        assert footer.startswith(f"Attempt a (job {number + 1}) was picked by "), footer
        assert discord.rest.refused == []

    assert (Path(info.path) / attempt_file(number + 1)).exists()


async def test_a_pick_asked_for_review_gets_a_review_card_closed_at_the_report(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    """`/task review attempts:2`: the picked attempt's work waits for an ordinary review, whose
    card comes in the job's thread; answered from the CLI, the job's report closes it (the
    attempt reports to no thread of its own)."""
    info = await desk.add_repo(REPO, str(origin))
    async with attempts_bot(settings, gates, tmp_path) as (fake, discord):
        number, thread = await two_attempts(fake, discord, review=True)
        await until(lambda: card_of(fake, thread, number), "the comparison card")
        await desk.pick(number, "b")
        key = ReviewKey(number + 2, 1)
        review_card = await card_posted(fake, thread, key)
        assert f"Job {number + 2} waits for your review" in review_card["content"]
        await desk.answer_review(number + 2, ReviewVerdict.INTEGRATE)
        report = await awaited(desk.wait(number), "the job's report")
        await report_posted(fake, thread, number)
        closed = fake.messages[int(review_card["id"])]
        assert not closed["components"], closed
        assert "Integrated by" in closed["content"], closed["content"]
        assert discord.rest.refused == []

    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (Path(info.path) / attempt_file(number + 2)).exists()


async def report_posted(fake: FakeDiscord, thread: int, number: int) -> None:
    """Until job `number`'s report is in `thread`."""
    heading = f"## Job {number} on "
    await until(
        lambda: any(m["content"].startswith(heading) for m in fake.in_channel(thread)),
        "the report in the thread",
    )
