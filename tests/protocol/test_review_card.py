"""The review card (issue 46) with the real bot process on Discord's protocol: a job asked for
review gets a card in its thread with its diffstat, its check, its cost so far and the whole diff
attached as `job-N.diff`; Integrate lands it, Revise… opens a modal whose text reaches the agent
(and a new card comes after its round), Discard drops the branch; a stranger's press changes
nothing and is told why, a second press is told who answered first, and a press (or a modal's
submit) after the bot restarted still answers."""

from __future__ import annotations

import sys
from pathlib import Path

from desk.config.settings import DeskSettings
from desk.payloads.conversation.review_payloads import ReviewVerdict
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from surfaces.discord.review.review_ids import ReviewKey
from surfaces.render.discord.uploads import ATTACHMENT_BYTES
from tests.helpers.jobs.one_shot import one_shot_command
from tests.helpers.repos import git
from tests.helpers.surfaces.review_cards import card_posted, press, reviewed_job_in_thread
from tests.helpers.waiting import awaited, until
from tests.protocol.stand_in.bot import bot_env, codedesk_discord
from tests.protocol.stand_in.server import DiscordStandIn
from tests.surfaces.fake_discord import OWNER_ID, STRANGER_ID, FakeDiscord

REPO = "acme/api"
BIG_AGENT = """
import os, subprocess
open("big.txt", "w").write("x\\n" * 600_000)
who = {"GIT_AUTHOR_NAME": "agent", "GIT_AUTHOR_EMAIL": "agent@example.com"}
who |= {"GIT_COMMITTER_NAME": "agent", "GIT_COMMITTER_EMAIL": "agent@example.com"}
git = ["git", "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false"]
subprocess.run([*git, "add", "-A"], check=True)
subprocess.run([*git, "commit", "-qm", "big"], check=True, env={**os.environ, **who})
"""
"""An agent whose diff (1.8 MB) is more than the card attaches: it is cut, and says so."""


def closed(fake: FakeDiscord, card: dict[str, object]) -> str:
    """The card's text once it has no buttons left ("" while it has)."""
    message = fake.messages[int(str(card["id"]))]
    return "" if message["components"] else str(message["content"])


async def test_the_card_shows_the_work_a_stranger_changes_nothing_and_integrate_lands_it(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    head = git(clone, "rev-parse", "HEAD")
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=one_shot_command(tmp_path / "bin"))
    fake = FakeDiscord()
    async with DiscordStandIn(fake) as discord:
        async with codedesk_discord(env, discord, tmp_path / "bot.log"):
            number, thread = await reviewed_job_in_thread(fake, discord, "write:a.txt=first")
            key = ReviewKey(number, 1)
            card = await card_posted(fake, thread, key)
            assert f"Job {number} waits for your review" in card["content"]
            assert "a.txt" in card["content"] and "Check: none" in card["content"]
            assert "Cost so far:" in card["content"]
            [attached] = card["attachments"]
            assert attached["filename"] == f"job-{number}.diff"
            assert "+first" in card["_files"][f"job-{number}.diff"].decode()
            labels = [c["label"] for row in card["components"] for c in row["components"]]
            assert labels == ["Integrate", "Revise…", "Discard"]

            stranger = await discord.interact(
                press(fake, card, ReviewVerdict.INTEGRATE, key, STRANGER_ID)
            )
            told = await until(lambda: fake.told(stranger), "the stranger told why")
            assert f"may not answer job {number}'s review" in told[0], told
            assert card["components"] and git(clone, "rev-parse", "HEAD") == head

        # A press after the bot restarted answers the same job's round.
        async with codedesk_discord(env, discord, tmp_path / "bot-again.log"):
            # Two presses at once (both made while the card showed its buttons): one counts.
            racing = press(fake, card, ReviewVerdict.DISCARD, key, OWNER_ID)
            owner = await discord.interact(
                press(fake, card, ReviewVerdict.INTEGRATE, key, OWNER_ID)
            )
            await until(lambda: fake.told(owner), "the owner told")
            report = await awaited(desk.wait(number), "the job's report")
            assert report.outcome == JobOutcome.INTEGRATED, report
            text = await until(lambda: closed(fake, card), "the card closed")
            assert f"Integrated by user{OWNER_ID}." in text, text

            # The second press is told who came first.
            late = await discord.interact(racing)
            told = await until(lambda: fake.told(late), "the late press told")
            assert f"answered first by user{OWNER_ID}: integrated" in told[0], told
            assert discord.rest.refused == []
    assert (clone / "a.txt").read_text() == "first"
    assert git(clone, "rev-parse", "HEAD") != head


async def test_revise_opens_a_modal_its_text_reaches_the_agent_and_discard_drops_the_work(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    head = git(clone, "rev-parse", "HEAD")
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=one_shot_command(tmp_path / "bin"))
    fake = FakeDiscord()
    async with DiscordStandIn(fake) as discord:
        async with codedesk_discord(env, discord, tmp_path / "bot.log"):
            number, thread = await reviewed_job_in_thread(fake, discord, "write:a.txt=first")
            first = ReviewKey(number, 1)
            card = await card_posted(fake, thread, first)
            opened = await discord.interact(
                press(fake, card, ReviewVerdict.REVISE, first, OWNER_ID)
            )
            modal = await until(lambda: fake.tokens[opened].get("modal"), "the Revise… modal")
            [row] = modal["components"]
            [text_input] = row["components"]
            assert (text_input["style"], text_input["max_length"]) == (2, 4000)

        # The modal was opened before the bot restarted, and is submitted after it.
        async with codedesk_discord(env, discord, tmp_path / "bot-again.log"):
            submit = fake.submit(opened, OWNER_ID, "write:b.txt=second")
            submitted = await discord.interact(submit)
            told = await until(lambda: fake.told(submitted), "the reviewer told")
            assert "Sent to the agent" in told[0], told
            text = await until(lambda: closed(fake, card), "the first card closed")
            assert f"Revision asked by user{OWNER_ID}." in text, text

            # The agent's next round ran the feedback; a second card shows both changes.
            second = ReviewKey(number, 2)
            again = await card_posted(fake, thread, second)
            diff = again["_files"][f"job-{number}.diff"].decode()
            assert "+first" in diff and "+second" in diff, diff
            status = (await desk.status(number))[1]
            assert status.review_rounds[0].feedback == "write:b.txt=second"

            gone = await discord.interact(
                press(fake, again, ReviewVerdict.DISCARD, second, OWNER_ID)
            )
            await until(lambda: fake.told(gone), "the reviewer told")
            report = await awaited(desk.wait(number), "the job's report")
            assert report.outcome == JobOutcome.DISCARDED, report
            text = await until(lambda: closed(fake, again), "the second card closed")
            assert f"Discarded by user{OWNER_ID}." in text, text
            assert discord.rest.refused == []
    assert git(clone, "rev-parse", "HEAD") == head
    assert status.branch not in git(clone, "branch", "--format=%(refname:short)").split()


async def test_a_diff_over_what_the_card_attaches_is_cut_with_a_note(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    script = gates / "big_agent.py"
    script.write_text(BIG_AGENT)
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=f"{sys.executable} {script}")
    fake = FakeDiscord()
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(env, discord, tmp_path / "bot.log"),
    ):
        number, thread = await reviewed_job_in_thread(fake, discord, "write a big file")
        card = await card_posted(fake, thread, ReviewKey(number, 1))
        note = f"`codedesk diff {number}` shows all of it"
        assert note in card["content"], card["content"]
        attached = card["_files"][f"job-{number}.diff"]
        assert len(attached) <= ATTACHMENT_BYTES and attached.startswith(b"diff --git")
        assert attached.decode().endswith(f"{note}.\n")
        assert discord.rest.refused == []
        # Answered from the CLI: the report closes the card all the same.
        await desk.answer_review(number, ReviewVerdict.DISCARD)
        await awaited(desk.wait(number), "the job's report")
        text = await until(lambda: closed(fake, card), "the card closed")
        assert text.endswith(".**") and "**Discarded by " in text, text
