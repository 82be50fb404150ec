"""A worker SIGKILLed after a message was accepted and handed to the real Claude Code, but before
the model saw it (the agent is inside a long tool call: Claude Code holds the message until the
call ends): the retry resumes the session, finds the message is not in it, and delivers it with
the resume; the model reads it exactly once, and the job ends once."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.client import Client

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome, JobStatus
from desk.payloads.message_payloads import MessageSeam
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import REPO, kill
from tests.helpers.agent_runs.session_resume import fresh_tasks, heartbeat_session, worker_env
from tests.helpers.cli_helpers import run_cli, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually
from tests.real_agents.fake_anthropic import (
    FakeAnthropic,
    IfTold,
    Say,
    ToolCall,
    bash,
    serving,
    told,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap here"),
]
TASK = "wait, then do what you are asked"
ASKED = "Please add a CHANGELOG.md"


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    script = [
        bash("sleep 100"),  # the worker is killed while the agent waits in this call
        IfTold(ASKED, ToolCall("Write", {"file_path": "CHANGELOG.md", "content": "- asked\n"})),
        bash("git add -A && git commit -q -m 'Add the changelog'"),
        Say("I added the changelog you asked for."),
    ]
    with serving(FakeAnthropic(steps=script)) as running:
        yield running


async def test_a_message_the_model_had_not_seen_when_the_worker_died_reaches_it_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    fake: FakeAnthropic,
) -> None:
    env = worker_env(settings, fake, tmp_path)
    first: subprocess.Popen[bytes] = start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    started = await run_cli(
        env, "task", REPO, TASK, "--agent-command", preset_command("claude"), cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    desk = DeskClient(client, settings)

    # The agent waits in its tool call, and the session id is durable in Temporal.
    await eventually(fake.conversation, lambda asked: len(asked) >= 1, "the agent's tool call")
    await eventually(
        lambda: heartbeat_session(client, number), bool, "the session id in the heartbeat"
    )
    said = await run_cli(env, "say", str(number), ASKED, cwd=tmp_path)
    assert said.returncode == 0, shown(said)
    assert "delivered to the running agent" in said.stdout, shown(said)
    status: JobStatus = (await desk.status(number))[1]
    [message] = status.messages
    assert message.delivered is None  # handed to the CLI, which holds it until the call ends
    assert len(fake.conversation()) == 1

    await kill(first)
    start_worker(env)

    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (report.agent_attempts, report.agent_resumed) == (2, 1), report
    assert len(fresh_tasks(fake)) == 1, fake.conversation()  # the task was sent once
    final = fake.conversation()[-1]
    assert told(final, ASKED) == 1, json.dumps(final["messages"])[-2000:]
    [message] = report.messages
    assert message.delivered is not None, message
    assert (message.delivered.run, message.delivered.attempt) == (1, 2), message
    assert message.delivered.seam == MessageSeam.STDIN
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines().count("Add the changelog") == 1
    assert (clone / "CHANGELOG.md").read_text() == "- asked\n"
