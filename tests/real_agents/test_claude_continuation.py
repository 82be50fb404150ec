"""A message to a finished job continues it (issue 46): `DeskClient.say` (as `codedesk say N TEXT`)
to an integrated job starts a new job on the clone's HEAD whose real Claude Code (pinned and
newest, in bubblewrap where it works), its model a scripted fake, resumes the finished job's
session: the model's first request of the new job carries the finished job's turns and the
message. With the session removed, the new job starts a new session with the finished job's
task and the message, and says so."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from activities.agent.process.launch import PRIVATE_HOME, SANDBOX_HOME
from activities.agent.session.session import CLAUDE_STATE
from activities.shelf_paths import job_dir
from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from surfaces.render.words.message_words import say_answer
from tests.helpers.desks import host_policy
from tests.helpers.real_agents.claude_code import REPO, talking_settings
from tests.helpers.real_agents.claude_code import claude_binary as claude_binary
from tests.helpers.real_agents.claude_code import claude_env as claude_env
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually
from tests.real_agents.fake_anthropic import FakeAnthropic, IfTold, Say, ToolCall, bash, told

pytestmark = pytest.mark.timeout(300)
TASK = "add a notes file and commit it"
ASKED = "Please also add a CHANGELOG.md"
NOTE = ToolCall("Write", {"file_path": "NOTES.md", "content": "notes\n"})
NOTES = [
    NOTE,
    bash("git add -A && git commit -q -m 'Add notes'"),
    Say("I added NOTES.md and committed it."),
]
WRITE_CHANGELOG = ToolCall("Write", {"file_path": "CHANGELOG.md", "content": "- notes\n"})
CHANGELOG = [
    IfTold(ASKED, WRITE_CHANGELOG),
    bash("git add -A && git commit -q -m 'Add the changelog'"),
    Say("I added the changelog you asked for."),
]


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    return talking_settings(settings)


def cli_user(settings: DeskSettings, number: int) -> str:
    """The user id Claude Code keeps in its own state in job `number`'s home."""
    folder = job_dir(settings, number)
    [home] = [folder / name for name in (SANDBOX_HOME, PRIVATE_HOME) if (folder / name).is_dir()]
    return str(json.loads((home / ".claude" / CLAUDE_STATE).read_text())["userID"])


async def test_say_to_an_integrated_job_continues_its_session_in_a_new_job(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    origin: Path,
    settings: DeskSettings,
) -> None:
    fake = claude_env([*NOTES, *CHANGELOG])
    info = await desk.add_repo(REPO, str(origin))
    first = await desk.start_job(REPO, TASK, agent_command=preset_command("claude"))
    report = await awaited(desk.wait(first), "the first job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.session_id and report.session_kept_until is not None, report
    before = len(fake.conversation())

    answer = await desk.say(first, ASKED)
    assert answer.continues == first and answer.number != first, answer
    assert not answer.continued_anew
    assert f"job {answer.number} continues it" in say_answer(answer)

    second = await awaited(desk.wait(answer.number), "the continuation's report")
    assert second.outcome == JobOutcome.INTEGRATED, second
    assert second.continues == first and not second.continued_anew, second
    assert [commit.subject for commit in second.commits] == ["Add the changelog"]
    assert (Path(info.path) / "CHANGELOG.md").read_text() == "- notes\n"
    assert git(Path(info.path), "log", "--format=%s").splitlines()[:2] == [
        "Add the changelog",
        "Add notes",
    ]
    # The continuation's first request holds the first job's turns (its task, its tool calls,
    # its last answer), then the message: the agent kept its context.
    resumed = fake.conversation()[before]
    earlier = json.dumps(resumed["messages"])
    assert TASK in earlier and "NOTES.md" in earlier and "toolu_0000" in earlier, earlier
    assert "I added NOTES.md and committed it." in earlier
    assert told(resumed, ASKED) == 1
    [message] = second.messages
    assert message.text == ASKED and message.delivered is not None, message
    # The CLI's own state came with the session: it did not start as if for the first time.
    assert cli_user(settings, answer.number) == cli_user(settings, first)


async def test_a_continuation_after_the_session_was_removed_starts_a_new_session(
    claude_env: Callable[..., FakeAnthropic], desk: DeskClient, origin: Path
) -> None:
    await host_policy(desk, session_keep=timedelta(seconds=1))
    # The fake follows each conversation from its start: a new session starts the script over.
    fake = claude_env(
        [
            IfTold(ASKED, WRITE_CHANGELOG, otherwise=NOTE),
            bash("git add -A && git commit -q -m 'Add what was asked'"),
            Say("Done."),
        ]
    )
    info = await desk.add_repo(REPO, str(origin))
    first = await desk.start_job(REPO, TASK, agent_command=preset_command("claude"))
    report = await awaited(desk.wait(first), "the first job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report

    async def removed() -> bool:
        _, current = await desk.status(first)
        return current.report is not None and current.report.session_removed_at is not None

    await eventually(removed, bool, "the session's removal")
    before = len(fake.conversation())
    answer = await desk.say(first, ASKED)
    assert answer.continues == first and answer.continued_anew, answer
    assert "starts a new session" in say_answer(answer)

    second = await awaited(desk.wait(answer.number), "the continuation's report")
    assert second.outcome == JobOutcome.INTEGRATED, second
    assert second.continued_anew, second
    assert (Path(info.path) / "CHANGELOG.md").read_text() == "- notes\n"
    # A new conversation: the first job's task and the message, none of its turns.
    fresh = fake.conversation()[before]
    assert not any(turn.get("role") == "assistant" for turn in fresh["messages"]), fresh
    assert told(fresh, TASK) >= 1 and told(fresh, ASKED) == 1
