"""The bot goes with a card open; a press on that card after it is back counts, once."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from temporalio.client import Client

from desk.approvals import Decision, OutcomeKind
from desk.models import JobOutcome
from desk.settings import DeskSettings
from surfaces.desk_client import DeskClient
from surfaces.discord.custom_ids import CardKey
from tests.cli_helpers import read_pid, settings_env
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
    OWNER_ID,
    FakeDiscord,
    allowed_mentions_everywhere,
    deliver,
    discord_settings,
    enabled,
    start_bot,
)
from tests.waiting import until
from workflows.approval import Approval


async def test_a_press_on_a_card_the_bot_posted_before_it_went_counts_after_it_is_back(
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
    config = discord_settings(settings, agent_command=hold_agent(tmp_path))
    queue = f"discord-{uuid.uuid4().hex[:8]}"
    # Discord keeps its messages while the bot is gone: one fake for both bots.
    fake = FakeDiscord()
    channel = fake.text_channel()

    first = await start_bot(fake, config, client, queue=queue, host_activities=True)
    try:
        command = fake.command("task", OWNER_ID, channel, repo=REPO, task="push it")
        await deliver(first, command)
        [answer] = fake.in_channel(channel)
        thread = int(answer["id"])
        found = re.search(r"Job \*\*(\d+)\*\* is running", answer["content"])
        assert found, answer["content"]
        number = int(found[1])
        ident = await open_approval(client)
        await until(lambda: fake.card(ident) is not None, "the card in the job's thread")
    finally:
        # The bot goes; a new bot object knows nothing of the old one but what Discord keeps.
        await first.close()
    card = fake.card(ident)
    assert card is not None and enabled(card) and card["channel_id"] == str(thread)

    resume_clock.restarted()
    again = await start_bot(fake, config, client, queue=queue, host_activities=True)
    try:
        press = fake.press(int(card["id"]), CardKey.of(ident).custom_id(Decision.APPROVE), OWNER_ID)
        await deliver(again, press)
        assert fake.told(press["token"]) == ["Approved."]
        report = await DeskClient(client, config).wait(number)
        await resume_clock.report_job(client, number)

        def reported() -> bool:
            texts = [m["content"] for m in fake.in_channel(thread)]
            return any(text.startswith(f"## Job {number} ") for text in texts)

        await until(lambda: not enabled(card) and reported(), "the card closed, the report")
    finally:
        await again.close()

    assert report.outcome == JobOutcome.INTEGRATED, report
    outcome = await client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.APPROVED, outcome
    assert outcome.by is not None and outcome.by.id == f"discord:{OWNER_ID}", outcome
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines().count("after the push") == 1
    assert (clone / "pushed.txt").read_text() == "yes"
    reports = [m for m in fake.in_channel(thread) if m["content"].startswith(f"## Job {number} ")]
    assert len(reports) == 1, reports
    assert card["embeds"][0]["footer"]["text"].startswith("Approved"), card["embeds"][0]
    allowed_mentions_everywhere(fake)
    assert_no_leftovers(clone, read_pid(tmp_path / "agent.pid") or 0)
    await assert_a_later_job_runs(env, tmp_path)
