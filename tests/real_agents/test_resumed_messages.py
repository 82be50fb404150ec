"""A message to the real codex and opencode (their presets, pinned and newest, in bubblewrap),
each against a scripted fake of its model: neither takes input while it runs, so the message
waits for the run's end; then the job resumes the CLI's own session with the message as the
prompt (`codex exec resume <thread>`, `opencode run --continue`), the model reads it after its
earlier turns, and it changes what the job commits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from desk.payloads.message_payloads import MessageDelivery, MessageSeam
from surfaces.clients.desk_client import DeskClient
from tests.helpers.real_agents.other_clis import RELEASES, REPO, make_codex_home
from tests.helpers.real_agents.other_clis import agent_env as agent_env
from tests.helpers.real_agents.other_clis import fake as fake
from tests.helpers.real_agents.other_clis import settings as settings
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually
from tests.real_agents.agent_env import on_path, opencode_config
from tests.real_agents.fake_anthropic import IfTold, Say, ToolCall, told
from tests.real_agents.fake_openai import FakeOpenAI
from tests.real_agents.install import release_cli

pytestmark = pytest.mark.timeout(600)
ASKED = "Please also add a CHANGELOG.md"
CHANGELOG = (
    "echo '- notes' > CHANGELOG.md && git add CHANGELOG.md"
    " && git commit -q -m 'Add the changelog' && echo ok"
)


@pytest.mark.parametrize("release", RELEASES)
async def test_a_message_to_codex_is_delivered_when_its_run_ends_by_resuming_its_thread(
    release: str,
    fake: FakeOpenAI,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    gates: Path,
    tmp_path: Path,
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, release_cli("codex", release))
    gate = gates / "codex-may-end"
    fake.steps = [
        ToolCall("exec_command", {"cmd": f"while [ ! -e {gate} ]; do sleep 0.1; done; echo on"}),
        IfTold(ASKED, ToolCall("exec_command", {"cmd": CHANGELOG}), Say("I waited.")),
        Say("Added the changelog."),
    ]
    make_codex_home(tmp_path / "codex-home", fake.url, monkeypatch)
    info = await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "wait for the gate", agent_command=preset_command("codex"))
    await eventually(fake.conversation, lambda asked: len(asked) >= 1, "codex's first step")

    answer = await desk.say(number, ASKED)
    assert (answer.delivery, answer.seam) == (MessageDelivery.TURN_END, MessageSeam.RESUME)
    gate.touch()

    report = await awaited(desk.wait(number), "the job's report")
    log = Path(report.log_path).read_text() if report.log_path else ""
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert [commit.subject for commit in report.commits] == ["Add the changelog"], report
    assert (Path(info.path) / "CHANGELOG.md").read_text() == "- notes\n"
    assert git(Path(info.path), "status", "--porcelain") == ""
    [message] = report.messages
    assert message.delivered is not None, message
    assert (message.delivered.run, message.delivered.seam) == (2, MessageSeam.RESUME)
    asked = fake.conversation()
    before = [body for body in asked if not told(body, ASKED)]
    after = [body for body in asked if told(body, ASKED)]
    assert before and after, [json.dumps(body)[-300:] for body in asked]
    # The resumed thread: the message comes after codex's earlier turns, and once.
    resumed = json.dumps(after[0].get("input"))
    assert "while [ ! -e" in resumed and resumed.count(ASKED) == 1, resumed[-2000:]
    assert "codedesk: resuming session" in log and "for messages" in log, log


@pytest.mark.parametrize("release", RELEASES)
async def test_a_message_to_opencode_is_delivered_when_its_run_ends_in_its_last_session(
    release: str,
    fake: FakeOpenAI,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    gates: Path,
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, release_cli("opencode", release))
    gate = gates / "opencode-may-end"
    task = "wait for the gate"
    wait = f"while [ ! -e {gate} ]; do sleep 0.1; done; echo on"
    fake.task = task
    fake.steps = [
        ToolCall("bash", {"command": wait, "description": "wait"}),
        Say("I waited."),
        IfTold(ASKED, ToolCall("bash", {"command": CHANGELOG, "description": "commit"})),
        Say("Added the changelog."),
    ]
    monkeypatch.setenv("OPENCODE_CONFIG_CONTENT", json.dumps(opencode_config(fake.url)))
    info = await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, task, agent_command=preset_command("opencode"))
    await eventually(fake.conversation, lambda asked: len(asked) >= 1, "opencode's first step")

    answer = await desk.say(number, ASKED)
    assert (answer.delivery, answer.seam) == (MessageDelivery.TURN_END, MessageSeam.RESUME)
    gate.touch()

    report = await awaited(desk.wait(number), "the job's report")
    log = Path(report.log_path).read_text() if report.log_path else ""
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert [commit.subject for commit in report.commits] == ["Add the changelog"], report
    assert (Path(info.path) / "CHANGELOG.md").read_text() == "- notes\n"
    [message] = report.messages
    assert message.delivered is not None, message
    assert (message.delivered.run, message.delivered.seam) == (2, MessageSeam.RESUME)
    after = [body for body in fake.conversation() if told(body, ASKED)]
    assert after, [json.dumps(body)[-300:] for body in fake.conversation()]
    # Its last session, continued: the earlier turns, then the message, once.
    resumed = json.dumps(after[0].get("messages"))
    assert "I waited." in resumed and resumed.count(ASKED) == 1, resumed[-2000:]
    assert "codedesk: resuming session (the agent's last) for messages" in log, log
