"""Review before it lands with the real Claude Code (the `claude` preset, pinned and newest, in
bubblewrap where it works), its model a scripted fake (issue 46): a `--review` job waits in
review with no process and no slot; `diff` shows its commit; `say` resumes the same session (the
model's request carries the earlier turns) and the agent commits a second change, the check runs
again; `integrate` lands both; `discard` of another leaves the clone untouched and removes its
branch."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.payloads.conversation.review_payloads import ReviewVerdict
from desk.payloads.jobs import JobOutcome, JobPhase, JobStatus
from desk.payloads.message_payloads import MessageDelivery
from desk.records.repo_setup import CheckStatus, SetRepoSetup
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from tests.helpers.agent_pids import job_processes
from tests.helpers.agents import agent
from tests.helpers.job_waits import status_until
from tests.helpers.real_agents.claude_code import REPO, talking_settings
from tests.helpers.real_agents.claude_code import claude_binary as claude_binary
from tests.helpers.real_agents.claude_code import claude_env as claude_env
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, eventually
from tests.real_agents.fake_anthropic import FakeAnthropic, Say, ToolCall, bash, told

pytestmark = pytest.mark.timeout(300)
ASKED = "Please also add a CHANGELOG.md"


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    """One slot: a job in review must not hold it."""
    return talking_settings(settings).model_copy(update={"max_workers": 1})


async def in_review(desk: DeskClient, number: int, rounds: int) -> JobStatus:
    return await status_until(
        desk,
        number,
        lambda now: now.phase == JobPhase.REVIEW and len(now.review_rounds) == rounds,
        f"job {number} in review, round {rounds}",
    )


def branches(clone: Path) -> list[str]:
    return git(clone, "branch", "--format=%(refname:short)").split()


async def test_claude_revises_in_its_own_session_then_lands_and_another_is_discarded(
    claude_env: Callable[..., FakeAnthropic], desk: DeskClient, origin: Path
) -> None:
    fake = claude_env(
        [
            ToolCall("Write", {"file_path": "NOTES.md", "content": "notes\n"}),
            bash("git add -A && git commit -q -m 'Add notes'"),
            Say("Added the notes."),
            # The revision: the session resumed with the reviewer's words.
            ToolCall("Write", {"file_path": "CHANGELOG.md", "content": "- notes\n"}),
            bash("git add -A && git commit -q -m 'Add the changelog'"),
            Say("Added the changelog you asked for."),
            # The job that is discarded.
            ToolCall("Write", {"file_path": "DROP.md", "content": "drop\n"}),
            bash("git add -A && git commit -q -m 'Add a file to drop'"),
            Say("Added it."),
        ]
    )
    info = await desk.add_repo(REPO, str(origin))
    clone = Path(info.path)
    await RepoSetupClient(desk.client, desk.settings).configure(
        SetRepoSetup(repo=REPO, check="test -d .")
    )
    head = git(clone, "rev-parse", "HEAD")
    claude = preset_command("claude")
    number = await desk.start_job(REPO, "add notes", agent_command=claude, review=True)
    first = await in_review(desk, number, 1)
    assert job_processes(first.worktree) == [], "a process of the job in review lives"
    # The job lends its slot as its round opens (the desk hears it a moment after the phase).
    await eventually(
        desk.desk_state,
        lambda state: state is not None and number not in state.running,
        "the job in review to lend its slot",
    )
    other = await desk.start_job(REPO, "other", agent_command=agent("write:o.txt=o", "commit:o"))
    meanwhile = await awaited(desk.wait(other), "the other job")
    assert meanwhile.outcome == JobOutcome.INTEGRATED, meanwhile
    found = await desk.diff(number)
    assert "NOTES.md" in found.stat and "+notes" in found.diff, found

    asked_before = len(fake.conversation())
    answer = await desk.say(number, ASKED)
    assert answer.delivery == MessageDelivery.RESUME, answer
    second = await in_review(desk, number, 2)
    assert second.check is not None and second.check.status == CheckStatus.PASSED
    resumed = fake.conversation()[asked_before]
    assert told(resumed, ASKED), resumed
    carried = json.dumps(resumed["messages"])
    assert "NOTES.md" in carried and carried.count(ASKED) == 1, carried[-2000:]  # same session

    await desk.answer_review(number, ReviewVerdict.INTEGRATE)
    report = await awaited(desk.wait(number), "the job's report")
    log = Path(report.log_path).read_text() if report.log_path else ""
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert [commit.subject for commit in report.commits] == ["Add notes", "Add the changelog"]
    assert (clone / "NOTES.md").is_file() and (clone / "CHANGELOG.md").is_file()
    assert [round.verdict for round in report.review_rounds] == [
        ReviewVerdict.REVISE,
        ReviewVerdict.INTEGRATE,
    ]
    assert [round.check for round in report.review_rounds] == [CheckStatus.PASSED] * 2

    landed = git(clone, "rev-parse", "HEAD")
    assert landed != head
    dropped = await desk.start_job(REPO, "add a file", agent_command=claude, review=True)
    waiting = await in_review(desk, dropped, 1)
    assert waiting.branch in branches(clone)
    await desk.answer_review(dropped, ReviewVerdict.DISCARD)
    gone = await awaited(desk.wait(dropped), "the discarded job's report")
    assert gone.outcome == JobOutcome.DISCARDED, gone
    assert git(clone, "rev-parse", "HEAD") == landed and not (clone / "DROP.md").exists()
    assert waiting.branch not in branches(clone)
