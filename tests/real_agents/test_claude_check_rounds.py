"""A failed check goes back to the real Claude Code (the `claude` preset, pinned and newest, in
bubblewrap where it works), its model a scripted fake: the check's tail is a message to the
agent's own session, resumed after its run ended; the model's request then carries its earlier
turns and the tail, its fix is committed, the check passes and the work integrates (issue 46)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from desk.payloads.message_payloads import MessageSeam
from desk.records.repo_setup import CheckStatus, SetRepoSetup
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from tests.helpers.real_agents.claude_code import REPO, talking_settings
from tests.helpers.real_agents.claude_code import claude_binary as claude_binary
from tests.helpers.real_agents.claude_code import claude_env as claude_env
from tests.helpers.waiting import awaited
from tests.real_agents.fake_anthropic import FakeAnthropic, IfTold, Say, bash, told

pytestmark = pytest.mark.timeout(300)
RED = "tests: one failed"
"""The check's tail, and not its command: what the model sees only in the tail."""
CHECK = "test -f fixed.txt || { printf 'tests: %s failed\\n' one; exit 3; }"


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    return talking_settings(settings)


async def test_a_failed_check_goes_back_to_claudes_session_and_its_fix_integrates(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
) -> None:
    fake = claude_env(
        [
            bash("echo hi > notes.txt && git add -A && git commit -q -m 'Add notes'"),
            Say("I added the notes."),
            IfTold(RED, bash("echo ok > fixed.txt && git add -A && git commit -q -m 'Fix it'")),
            Say("Fixed the check."),
        ]
    )
    info = await desk.add_repo(REPO, str(origin))
    await RepoSetupClient(desk.client, settings).configure(SetRepoSetup(repo=REPO, check=CHECK))
    number = await desk.start_job(REPO, "add notes", agent_command=preset_command("claude"))

    report = await awaited(desk.wait(number), "the job's report")
    log = Path(report.log_path).read_text() if report.log_path else ""
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert [commit.subject for commit in report.commits] == ["Add notes", "Fix it"], report
    assert (Path(info.path) / "fixed.txt").read_text() == "ok\n"
    assert [r.status for r in report.check_rounds] == [CheckStatus.FAILED, CheckStatus.PASSED]
    [message] = report.messages
    assert message.delivered is not None, message
    assert (message.delivered.run, message.delivered.seam) == (2, MessageSeam.STDIN)
    asked = fake.conversation()
    fixing = [body for body in asked if told(body, RED)]
    assert fixing, [json.dumps(body)[-300:] for body in asked]
    # The same session: the request with the tail carries the earlier turns, and the tail once.
    first = fixing[0]
    assert "I added the notes." in json.dumps(first["messages"]), json.dumps(first)[-2000:]
    assert told(first, RED) == 1 and told(asked[-1], RED) == 1
