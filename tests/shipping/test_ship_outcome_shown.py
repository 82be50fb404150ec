"""A job's report shows what came of the push its agent asked for, once the push has ended:
`codedesk show`, `show --json`, and the job's Discord thread (issue 43, item 4)."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, Principal
from desk.payloads.jobs import JobOutcome
from desk.payloads.ship_payloads import PushStatus
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from tests.helpers.job_waits import open_ids
from tests.helpers.jobs.shipping import PLAIN
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually, until
from tests.surfaces.discord_driver import (
    OWNER_ID,
    FakeDiscord,
    allowed_mentions_everywhere,
    custom_ids,
    deliver,
    discord_settings,
    start_bot,
)
from workers.desk_handle import configure_desk

STEPS = ("write:hello.txt=hi", "commit:greet", f"hold:{PLAIN}", "say:held")


async def test_show_says_the_push_was_made_once_it_was(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    number = await desk.start_job("acme/api", "greet and push", agent_command=agent(*STEPS))
    approvals = ApprovalsClient(desk.client)
    owner = Principal(id=settings.owner, name="alice")
    [ident] = await open_ids(approvals)
    assert (await approvals.answer(ident, Decision.APPROVE, owner))[0].counted
    report = await desk.wait(number)
    [shipped] = report.ship_requests
    env = settings_env(settings)

    async def show(*extra: str) -> str:
        result = await run_cli(env, "show", str(number), *extra, cwd=tmp_path)
        assert result.returncode == 0, shown(result)
        return result.stdout

    waiting = await show()
    assert "waits for an owner's approval of that commit" in waiting, waiting
    await eventually(
        approvals.open_approvals,
        lambda states: [s for s in states if s.approval_id == shipped.push_approval_id],
        "the push's approval to open",
    )
    assert (await approvals.answer(shipped.push_approval_id, Decision.APPROVE, owner))[0].counted
    ship = desk.client.get_workflow_handle(shipped.push_workflow_id)
    await awaited(ship.result(), "the push")
    assert git(origin, "rev-parse", "main") == report.head

    text = " ".join((await show()).split())
    assert "waits for an owner's approval" not in text, text
    assert f"pushed {report.head} to main" in text, text
    assert "approved by alice" in text, text
    document = json.loads(await show("--json"))
    [requested] = document["job"]["report"]["ship_requests"]
    assert requested["outcome"]["status"] == PushStatus.PUSHED.value, requested
    assert requested["outcome"]["approved_by"] == "alice"


async def test_the_jobs_thread_hears_the_pushs_end(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    config = discord_settings(settings, agent_command=agent(*STEPS))
    # The desk's worker runs with the bot's environment: its host policy names the same owners.
    await configure_desk(desk.client, config)
    queue = f"discord-{uuid.uuid4().hex[:8]}"
    await desk.add_repo("acme/api", str(origin))
    fake = FakeDiscord()
    channel = fake.text_channel()
    bot = await start_bot(fake, config, desk.client, queue=queue, host_activities=True)

    def cards(thread: int) -> list[dict[str, Any]]:
        return [message for message in fake.in_channel(thread) if custom_ids(message)]

    async def press_the_card(thread: int, which: int) -> None:
        await until(lambda: len(cards(thread)) > which, f"card {which + 1} in the thread")
        card = cards(thread)[which]
        approve, _ = custom_ids(card)
        await deliver(bot, fake.press(int(card["id"]), approve, OWNER_ID))

    try:
        command = fake.command("task", OWNER_ID, channel, repo="acme/api", task="greet, push")
        await deliver(bot, command)
        [answer] = fake.in_channel(channel)
        thread = int(answer["id"])
        found = re.search(r"Job \*\*(\d+)\*\* is running", answer["content"])
        assert found, answer["content"]
        number = int(found[1])
        await press_the_card(thread, 0)  # the agent's push: codedesk ships it
        report = await awaited(desk.wait(number), f"job {number}'s report")
        assert report.outcome == JobOutcome.INTEGRATED, report
        await press_the_card(thread, 1)  # the push of the integrated commit

        def told() -> list[str]:
            return [
                message["content"]
                for message in fake.in_channel(thread)
                if message["content"].startswith(f"Job {number}: Pushed")
            ]

        [said] = await eventually(told, bool, "the thread to hear the push's end")
        assert report.head in said and " to main at " in said, said
        assert git(origin, "rev-parse", "main") == report.head
        job = fake.command("job", OWNER_ID, channel, number=number)
        await deliver(bot, job)
        shown_job = " ".join("\n".join(fake.told(job["token"])).split())
        assert "waits for an owner's approval" not in shown_job, shown_job
        assert f"pushed `{report.head}` to `main`" in shown_job, shown_job
    finally:
        await bot.close()
    allowed_mentions_everywhere(fake)
