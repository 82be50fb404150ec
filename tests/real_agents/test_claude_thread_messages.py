"""A message typed in a job's Discord thread reaches the real Claude Code (the `claude` preset,
pinned and newest, in bubblewrap where it works), its model a scripted fake: the real bot on
Discord's protocol says it to the job, the model's next request holds it, the job commits what it
asked, and the message is marked delivered in the thread (issue 45)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from desk.payloads.message_payloads import MessageSeam
from surfaces.clients.desk_client import DeskClient
from tests.helpers.real_agents.claude_code import REPO, talking_settings
from tests.helpers.real_agents.claude_code import claude_binary as claude_binary
from tests.helpers.real_agents.claude_code import claude_env as claude_env
from tests.helpers.surfaces.discord_threads import job_in_thread
from tests.helpers.waiting import awaited, eventually, until
from tests.protocol.stand_in.bot import bot_env, codedesk_discord
from tests.protocol.stand_in.server import DiscordStandIn
from tests.real_agents.fake_anthropic import FakeAnthropic, IfTold, Say, ToolCall, bash, told
from tests.surfaces.fake_discord import OWNER_ID, FakeDiscord

pytestmark = pytest.mark.timeout(300)
ASKED = "Please also add a CHANGELOG.md"


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    return talking_settings(settings)


async def test_a_message_in_the_thread_reaches_claudes_next_request(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
    gates: Path,
) -> None:
    gate = gates / "tool-may-end"
    model = claude_env(
        [
            bash(f"while [ ! -e {gate} ]; do sleep 0.1; done"),  # the agent works in a tool
            IfTold(ASKED, ToolCall("Write", {"file_path": "CHANGELOG.md", "content": "- notes\n"})),
            bash("git add -A && git commit -q -m 'Add the changelog'"),
            Say("I added the changelog you asked for."),
        ]
    )
    info = await desk.add_repo(REPO, str(origin))
    fake = FakeDiscord()
    env = bot_env(settings, CODEDESK_AGENT_COMMAND=preset_command("claude"))
    async with (
        DiscordStandIn(fake) as discord,
        codedesk_discord(env, discord, tmp_path / "bot.log"),
    ):
        number, thread = await job_in_thread(fake, discord, "wait for the gate")
        await eventually(model.conversation, lambda asked: len(asked) >= 1, "the agent's step")
        mine = await discord.gateway.said(thread, OWNER_ID, ASKED)
        await until(lambda: fake.reactions(mine) == ["✅"], "the message marked delivered")
        gate.touch()
        report = await awaited(desk.wait(number), "the job's report")
        assert fake.replies_to(mine) == []
        assert discord.rest.refused == []

    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["Add the changelog"]
    assert (Path(info.path) / "CHANGELOG.md").read_text() == "- notes\n"
    # The model's next request after the tool had the message, with who sent it, and no
    # request before it did.
    asked = model.conversation()
    assert told(asked[0], ASKED) == 0 and told(asked[1], ASKED) == 1, asked[1]["messages"][-2:]
    [message] = report.messages
    assert (message.by.id, message.surface) == (f"discord:{OWNER_ID}", "discord")
    assert message.delivered is not None, message
    assert (message.delivered.run, message.delivered.seam) == (1, MessageSeam.STDIN)
    assert f"codedesk message 1 from {message.by.name}" in str(asked[1]["messages"])
