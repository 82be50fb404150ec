"""A message to the real Claude Code (the `claude` preset, pinned and newest, in bubblewrap where
it works), its model a scripted fake: sent by `DeskClient.say` while the agent works, it reaches
the model's next request on the CLI's streaming input and changes what the job commits; sent to
a suspended agent, it is delivered with the resume, once the deferred call is decided."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, Principal
from desk.payloads.jobs import JobOutcome, JobPhase, JobStatus
from desk.payloads.message_payloads import MessageDelivery, MessageSeam
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.real_agents.claude_code import REPO, talking_settings
from tests.helpers.real_agents.claude_code import claude_binary as claude_binary
from tests.helpers.real_agents.claude_code import claude_env as claude_env
from tests.helpers.waiting import awaited, eventually
from tests.real_agents.fake_anthropic import FakeAnthropic, IfTold, Say, ToolCall, bash, told

pytestmark = pytest.mark.timeout(300)
ASKED = "Please also add a CHANGELOG.md"
CHANGELOG = ToolCall("Write", {"file_path": "CHANGELOG.md", "content": "- notes\n"})
COMMIT_CHANGELOG = bash("git add -A && git commit -q -m 'Add the changelog'")


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    return talking_settings(settings)


async def test_a_message_while_claude_works_reaches_the_models_next_request(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    origin: Path,
    gates: Path,
) -> None:
    gate = gates / "tool-may-end"
    fake = claude_env(
        [
            bash(f"while [ ! -e {gate} ]; do sleep 0.1; done"),  # the agent works in a tool
            IfTold(ASKED, CHANGELOG),
            COMMIT_CHANGELOG,
            Say("I added the changelog you asked for."),
        ]
    )
    info = await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "wait for the gate", agent_command=preset_command("claude"))
    await eventually(fake.conversation, lambda asked: len(asked) >= 1, "the agent's first step")

    answer = await desk.say(number, ASKED)
    assert (answer.delivery, answer.seam) == (MessageDelivery.DELIVERED, MessageSeam.STDIN)
    gate.touch()

    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["Add the changelog"]
    assert (Path(info.path) / "CHANGELOG.md").read_text() == "- notes\n"
    # The model's next request after the tool had the message, and so did every later one.
    asked = fake.conversation()
    assert told(asked[0], ASKED) == 0 and told(asked[1], ASKED) == 1, asked[1]["messages"][-2:]
    assert told(asked[-1], ASKED) == 1
    [message] = report.messages
    assert message.delivered is not None, message
    assert (message.delivered.run, message.delivered.seam) == (1, MessageSeam.STDIN)
    assert f"codedesk message 1 from {message.by.name}" in str(asked[1]["messages"])


async def test_a_message_to_a_suspended_claude_is_delivered_with_its_resume(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
) -> None:
    fake = claude_env(
        [
            ToolCall("Write", {"file_path": "NOTES.md", "content": "notes\n"}),
            bash("git add -A && git commit -q -m 'Add notes'"),
            bash("git push origin HEAD:main"),  # held: nobody answers in the live window
            Say("Committed the notes; the push is codedesk's."),
            IfTold(ASKED, CHANGELOG),
            COMMIT_CHANGELOG,
            Say("Added the changelog too."),
        ]
    )
    info = await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "notes", agent_command=preset_command("claude"))

    async def status() -> JobStatus:
        return (await desk.status(number))[1]

    await eventually(status, lambda seen: seen.phase == JobPhase.SUSPENDED, "the suspension")
    answer = await desk.say(number, ASKED)
    assert answer.delivery == MessageDelivery.RESUME, answer
    approvals = ApprovalsClient(desk.client)
    [held] = await approvals.open_approvals()
    await approvals.answer(held.approval_id, Decision.DECLINE, Principal(id=settings.owner))

    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.agent_suspended == 1, report
    assert [commit.subject for commit in report.commits] == ["Add notes", "Add the changelog"]
    assert (Path(info.path) / "CHANGELOG.md").read_text() == "- notes\n"
    [message] = report.messages
    assert message.delivered is not None, message
    assert (message.delivered.run, message.delivered.seam) == (2, MessageSeam.STDIN)
    asked = fake.conversation()
    # The resumed session decided the deferred call first (the model read the refusal), then
    # took the message as a turn of its own; the model read it once.
    declined = next(k for k, body in enumerate(asked) if "declined" in str(body["messages"]))
    assert told(asked[declined], ASKED) == 0
    assert told(asked[-1], ASKED) == 1
    # What the agent spent adds up across its runs and the turns of each, as the model said.
    used = fake.used
    assert report.usage is not None, report
    assert report.usage.input_tokens == used["input_tokens"] + used["cache_creation_input_tokens"]
    assert report.usage.output_tokens == used["output_tokens"], (report.usage, used)


OLD_PRESET = (
    "claude -p --output-format stream-json --verbose --permission-mode acceptEdits"
    " --settings {hook_settings} --append-system-prompt={instructions} -- {task}"
)
"""The `claude` preset before its input streamed: jobs started then carry it, as may an owner's
own command. It takes no message while it runs."""


async def test_a_claude_command_without_streaming_input_gets_its_message_in_a_resumed_session(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    origin: Path,
    gates: Path,
) -> None:
    gate = gates / "old-may-end"
    fake = claude_env(
        [
            bash(f"while [ ! -e {gate} ]; do sleep 0.1; done"),
            Say("I waited."),
            IfTold(ASKED, CHANGELOG),
            COMMIT_CHANGELOG,
            Say("Added the changelog."),
        ]
    )
    info = await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "wait for the gate", agent_command=OLD_PRESET)
    await eventually(fake.conversation, lambda asked: len(asked) >= 1, "the agent's first step")
    answer = await desk.say(number, ASKED)
    assert (answer.delivery, answer.seam) == (MessageDelivery.TURN_END, MessageSeam.RESUME)
    gate.touch()

    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["Add the changelog"]
    assert (Path(info.path) / "CHANGELOG.md").read_text() == "- notes\n"
    [message] = report.messages
    assert message.delivered is not None, message
    assert (message.delivered.run, message.delivered.seam) == (2, MessageSeam.RESUME)
    asked = fake.conversation()
    resumed = next(body for body in asked if told(body, ASKED))
    assert "I waited." in str(resumed["messages"]) and told(asked[-1], ASKED) == 1
