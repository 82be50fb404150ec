"""A message to a finished job whose agent was the real codex (its preset, pinned and newest, in
bubblewrap), its model a scripted fake: the job that continues it resumes the finished job's
thread (`codex exec resume <thread>`, from the copy the new job takes into its own home), so the
model's first request of the new job carries the finished job's turns and the message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.real_agents.other_clis import NOTES, RELEASES, REPO, make_codex_home
from tests.helpers.real_agents.other_clis import agent_env as agent_env
from tests.helpers.real_agents.other_clis import fake as fake
from tests.helpers.real_agents.other_clis import settings as settings
from tests.helpers.waiting import awaited
from tests.real_agents.agent_env import on_path
from tests.real_agents.fake_anthropic import IfTold, Say, told
from tests.real_agents.fake_openai import FakeOpenAI, shell
from tests.real_agents.install import release_cli

pytestmark = pytest.mark.timeout(600)
TASK = "add a notes file and commit it"
ASKED = "Please also add a CHANGELOG.md"
CHANGELOG = (
    "echo '- notes' > CHANGELOG.md && git add CHANGELOG.md"
    " && git commit -q -m 'Add the changelog' && echo ok"
)


@pytest.mark.parametrize("release", RELEASES)
async def test_say_to_a_finished_codex_job_resumes_its_thread_in_a_new_job(
    release: str,
    fake: FakeOpenAI,
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
    agent_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    on_path(monkeypatch, release_cli("codex", release))
    # The fake counts the conversation's tool calls: the first job ends after one, and its
    # resumed thread goes on from there.
    fake.steps = [
        shell(NOTES),
        IfTold(
            ASKED,
            shell(CHANGELOG),
            Say("I added NOTES.md and committed it."),
        ),
        Say("Added the changelog."),
    ]
    make_codex_home(tmp_path / "codex-home", fake.url, monkeypatch)
    await desk.add_repo(REPO, str(origin))
    first = await desk.start_job(REPO, TASK, agent_command=preset_command("codex"))
    report = await awaited(desk.wait(first), "the first job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.session_id, report
    before = len(fake.conversation())

    answer = await desk.say(first, ASKED)
    assert answer.continues == first and not answer.continued_anew, answer
    second = await awaited(desk.wait(answer.number), "the continuation's report")
    log = Path(second.log_path).read_text() if second.log_path else ""
    assert second.outcome == JobOutcome.INTEGRATED, (second, log)
    assert [commit.subject for commit in second.commits] == ["Add the changelog"], second
    assert f"codedesk: resuming session {report.session_id}" in log, log
    resumed = fake.conversation()[before]
    earlier = json.dumps(resumed.get("input"))
    assert TASK in earlier and "NOTES.md" in earlier, earlier[-2000:]
    assert told(resumed, ASKED) == 1
