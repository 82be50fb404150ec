"""A worker SIGKILLed between two tool calls of the real Claude Code, sandboxed in bubblewrap:
the next attempt resumes the CLI's session (`claude -p --resume`) instead of sending the task
afresh, and the job integrates once."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.client import Client

from activities.agent.session.session import RESUME_PROMPT
from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import REPO, kill
from tests.helpers.agent_runs.session_resume import fresh_tasks, heartbeat_session, worker_env
from tests.helpers.cli_helpers import run_cli, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually
from tests.real_agents.fake_anthropic import FakeAnthropic, Say, ToolCall, bash, serving

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap here"),
]
TASK = "add a notes file and commit it"


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    script = [
        ToolCall("Write", {"file_path": "NOTES.md", "content": "notes\n"}),
        bash("sleep 100"),  # the worker is killed while the agent waits in this call
        bash("git add -A && git commit -q -m 'Add notes'"),
        Say("I added NOTES.md and committed it."),
    ]
    with serving(FakeAnthropic(steps=script)) as running:
        yield running


async def test_a_worker_killed_between_two_tool_calls_resumes_the_session(
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

    # The model asked for the second tool call, and the session id is durable in Temporal.
    await eventually(fake.conversation, lambda asked: len(asked) >= 2, "the second tool call")
    session = await eventually(
        lambda: heartbeat_session(client, number), bool, "the session id in the heartbeat"
    )
    await kill(first)
    start_worker(env)

    report = await awaited(DeskClient(client, settings).wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (report.agent_attempts, report.agent_resumed, report.agent_started_over) == (2, 1, 0)
    assert len(fresh_tasks(fake)) == 1, fake.conversation()  # the task was sent once
    resumed = next(
        body for body in fake.conversation() if RESUME_PROMPT in json.dumps(body["messages"])
    )
    earlier = json.dumps(resumed["messages"])
    assert TASK in earlier and "toolu_0000" in earlier and "NOTES.md" in earlier, earlier
    log = Path(report.log_path).read_text()
    assert f"codedesk: resuming session {session}\n" in log, log
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines().count("Add notes") == 1
    # The worktree is gone with the integration; the CLI's session is kept for a continuation.
    assert report.session_kept_until is not None
    assert list((settings.home / "jobs" / str(number) / "agent-home").rglob(f"{session}.jsonl"))
    assert Path(report.log_path).is_file()
