"""A worker SIGKILLed while the real codex waits in a command, sandboxed in bubblewrap: the next
attempt resumes codex's thread (`codex exec resume <id>`) instead of sending the task afresh,
and the job integrates once."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from activities.agent.session.session import RESUME_PROMPT
from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import REPO, kill
from tests.helpers.agent_runs.codex_resume import worker_env
from tests.helpers.agent_runs.session_resume import heartbeat_session
from tests.helpers.cli_helpers import run_cli, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually
from tests.real_agents.fake_anthropic import Say
from tests.real_agents.fake_openai import FakeOpenAI, serving, shell

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap here"),
]
TASK = "add a notes file and commit it"


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    script = [
        shell("echo notes > NOTES.md"),
        shell("sleep 100"),  # the worker is killed while the agent waits in this call
        shell("git add -A && git commit -q -m 'Add notes'"),
        Say("I added NOTES.md and committed it."),
    ]
    with serving(FakeOpenAI(steps=script)) as running:
        yield running


def calls(body: dict[str, Any]) -> list[str]:
    """The commands of the tool calls a request carries from its conversation so far."""
    items = body.get("input") if isinstance(body.get("input"), list) else []
    return [i["arguments"] for i in items if i.get("type") == "function_call"]


async def test_a_worker_killed_while_codex_runs_a_command_resumes_its_thread(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    fake: FakeOpenAI,
) -> None:
    env = worker_env(settings, fake, tmp_path)
    first: subprocess.Popen[bytes] = start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    started = await run_cli(
        env, "task", REPO, TASK, "--agent-command", preset_command("codex"), cwd=tmp_path
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)

    # The model asked for the sleep, and the thread's id is durable in Temporal.
    await eventually(fake.conversation, lambda asked: len(asked) >= 2, "the second tool call")
    session = await eventually(
        lambda: heartbeat_session(client, number), bool, "the thread id in the heartbeat"
    )
    await kill(first)
    start_worker(env)

    report = await awaited(DeskClient(client, settings).wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (report.agent_attempts, report.agent_resumed, report.agent_started_over) == (2, 1, 0)
    asked = fake.conversation()
    assert [body for body in asked if not calls(body)] == asked[:1], asked  # the task, once
    resumed = next(body for body in asked if RESUME_PROMPT in json.dumps(body["input"]))
    assert TASK in json.dumps(resumed["input"]) and len(calls(resumed)) == 2, resumed
    assert report.output == "I added NOTES.md and committed it.", report.output
    log = Path(report.log_path).read_text()
    assert f"codedesk: resuming session {session}\n" in log, log
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "log", "--format=%s").splitlines().count("Add notes") == 1
    # codex says its usage when a turn ends: the killed attempt said none, and the resumed
    # thread's total holds what codex had saved of it. Never more than the model reported.
    used = fake.used
    assert report.usage is not None, report
    assert 0 < report.usage.output_tokens <= used["output_tokens"], (report.usage, used)
    assert report.usage.input_tokens <= used["input_tokens"] - used["cached_tokens"], used
