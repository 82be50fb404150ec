"""A job's Discord thread and `codedesk watch` show the agent's latest lines while it works."""

from __future__ import annotations

import asyncio
import re
import uuid
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType

from desk.config.settings import DeskSettings
from desk.names import outbox_workflow_id
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent_script
from tests.helpers.cli_helpers import settings_env, watch_output
from tests.surfaces.discord_driver import (
    OWNER_ID,
    FakeDiscord,
    allowed_mentions_everywhere,
    deliver,
    discord_settings,
    start_bot,
)
from tests.surfaces.fake_discord import description, progress_of

TOKEN_BODY = "Zq8vR2mK7pL4nW9xT3bY6cJ1hF5dG0sA2eU4"
HOSTILE = "ping @everyone **loud** [click](https://evil.example) <@123> ``` closed?"


async def until(check: Any, what: str, within: float = 60) -> Any:
    for _ in range(int(within / 0.1)):
        found = check()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


async def test_the_thread_shows_the_agents_lines_scrubbed_and_neutralised_until_it_ends(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    go_on = gates / "go-on"
    command = agent_script(
        gates,
        "say:reading the code",
        f"say:using ghp_{TOKEN_BODY} now",
        f"say:{HOSTILE}",
        f"wait:{go_on}",
        "say:done reading",
    )
    config = discord_settings(settings, agent_command=command, progress_agent_lines=3)
    queue = f"discord-{uuid.uuid4().hex[:8]}"
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, config, desk.client, queue=queue, host_activities=True)
    try:
        task = fake.command("task", OWNER_ID, channel, repo="acme/api", task="read it")
        await deliver(bot, task)
        [answer] = fake.in_channel(channel)
        thread = int(answer["id"])
        found = re.search(r"Job \*\*(\d+)\*\* is running", answer["content"])
        assert found, answer["content"]
        number = int(found[1])

        shown = await until(
            lambda: "wait for" in description(fake, thread) and description(fake, thread),
            "the agent's lines in the progress message",
        )
        assert shown.startswith("The agent works on branch")
        narration, block = shown.split("\n", 1)
        assert block.startswith("```text\n") and block.endswith("\n```")
        body = block.removeprefix("```text\n").removesuffix("\n```")
        assert "```" not in body  # the agent's backticks cannot close the block
        assert body.split("\n") == [  # the last three, the agent's wait among them
            "using ghp_*** now",
            HOSTILE.replace("@", "@\u200b").replace("```", "``\u200b`"),
            f"scripted agent: wait for {go_on}",
        ]
        assert TOKEN_BODY not in str(fake.message_bodies())
        assert "@everyone" not in shown
        assert (await desk.status(number))[1].report is None  # shown while the job runs

        go_on.touch()
        report = await desk.wait(number)
        assert report.outcome == JobOutcome.NOTHING, report
        await until(lambda: fake.archived(thread), "the report and the archived thread")
        await until(lambda: not bot.surface.agents.watches, "the watch to end")
        progress = progress_of(fake, thread)
        assert progress is not None
        edits = f"/channels/{thread}/messages/{progress['id']}"
        sent = [(s.method, s.path) for s in fake.sent]
        last_edit = max(i for i, request in enumerate(sent) if request == ("PATCH", edits))
        report_posts = [
            i
            for i, s in enumerate(fake.sent)
            if s.method == "POST"
            and s.json
            and str(s.json.get("content", "")).startswith(f"## Job {number}")
        ]
        assert report_posts and last_edit < report_posts[0]
        final = description(fake, thread)
        assert TOKEN_BODY not in final
        # Several of the bot's intervals (0.2 s) later, still nothing has changed it.
        await asyncio.sleep(1.0)
        assert [(s.method, s.path) for s in fake.sent].count(("PATCH", edits)) == sent.count(
            ("PATCH", edits)
        )
        assert description(fake, thread) == final
    finally:
        await bot.close()
    allowed_mentions_everywhere(fake)
    # The lines went from the heartbeat to Discord: the thread's outbox ran one progress step
    # per narration of the job (worktree, agent, integration), none per line.
    outbox = desk.client.get_workflow_handle(outbox_workflow_id(queue, str(thread)))
    steps = [
        event.activity_task_scheduled_event_attributes.activity_type.name
        async for event in outbox.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert steps.count("set_progress") == 3, steps


async def test_watch_prints_the_agents_new_lines_while_it_works(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    go_on = gates / "go-on"
    await desk.add_repo("acme/api", str(origin))
    command = agent_script(
        gates, "say:first line", f"say:key ghp_{TOKEN_BODY}", f"wait:{go_on}", "say:last"
    )
    number = await desk.start_job("acme/api", "watch me", agent_command=command)
    env = settings_env(settings, CODEDESK_AGENT_PROGRESS_INTERVAL="0.2s")
    output, _ = await watch_output(number, env, tmp_path, lambda line: "key ghp_***" in line, go_on)
    agent_lines = [line.strip() for line in output.splitlines() if "agent │" in line]
    assert agent_lines[:2] == ["agent │ first line", "agent │ key ghp_***"]
    assert len(set(agent_lines)) == len(agent_lines)  # each line once
    assert TOKEN_BODY not in output
