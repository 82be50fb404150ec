"""`/mode` in a job's Discord thread: the job follows it, its thread says so, its report lists."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from desk.policy.modes import Mode
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.mode_client import ModesClient
from tests.helpers.agents import agent
from tests.helpers.waiting import until
from tests.surfaces.discord_driver import (
    OWNER_ID,
    FakeDiscord,
    allowed_mentions_everywhere,
    deliver,
    discord_settings,
    start_bot,
)
from workers.desk_handle import configure_desk

DESTRUCTIVE = {"tool": "Bash", "input": {"command": "git update-ref -d refs/heads/main"}}


async def test_mode_in_a_jobs_thread_releases_its_hold_and_the_thread_says_so(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    steps = agent("hold:" + json.dumps(DESTRUCTIVE), "say:removed")
    config = discord_settings(settings, agent_command=steps)
    # The desk's worker runs with the bot's environment: its host policy names the same owners.
    await configure_desk(desk.client, config)
    queue = f"discord-{uuid.uuid4().hex[:8]}"
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, config, desk.client, queue=queue, host_activities=True)
    try:
        await deliver(bot, fake.command("task", OWNER_ID, channel, repo="acme/api", task="x"))
        [answer] = fake.in_channel(channel)
        thread = int(answer["id"])
        found = re.search(r"Job \*\*(\d+)\*\* is running", answer["content"])
        assert found, answer["content"]
        number = int(found[1])
        await until(lambda: any(m.get("embeds") for m in fake.in_channel(thread)[1:]), "a card")

        shown = fake.command("mode", OWNER_ID, thread)
        await deliver(bot, shown)
        assert fake.told(shown["token"])[0].startswith("**Modes here**: nothing switched")
        switch = fake.command("mode", OWNER_ID, thread, mode="yolo", value="on")
        await deliver(bot, switch)
        [said] = [text.replace("\\", "") for text in fake.told(switch["token"])]
        assert said.startswith(f"Switched yolo on (channel {thread}, by user{OWNER_ID}) here.")
        assert f"Jobs told now: **{number}**." in said

        report = await desk.wait(number)
        assert report.outcome == JobOutcome.NOTHING, report.reason
        assert [call.note for call in report.yolo_approved] == [
            f"yolo mode, switched on by user{OWNER_ID}"
        ]
        await until(lambda: fake.archived(thread), "the report and the archived thread")
    finally:
        await bot.close()
    texts = [(m.get("content") or "").replace("\\", "") for m in fake.in_channel(thread)]
    assert any(t.startswith(f"Job {number}: modes now yolo on (channel {thread}") for t in texts)
    told = f"Job {number}: approved by yolo mode, switched on by user{OWNER_ID}: Run: git"
    assert [t for t in texts if t.startswith(told)] == [f"{told} update-ref -d refs/heads/main"]
    [report_text] = [t for t in texts if t.startswith(f"## Job {number}")]
    assert "Approved by yolo mode (1)" in report_text
    view = await ModesClient(desk.client, desk.settings).view()
    assert view.channels[str(thread)][Mode.YOLO].by.id == f"discord:{OWNER_ID}"
    allowed_mentions_everywhere(fake)
