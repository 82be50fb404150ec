"""A job whose budget runs out pauses and asks (issue 47), on the real codex (its preset, pinned
and newest, in bubblewrap where it works) against a scripted fake of its model: stopped at its
work budget with its thread kept, the job waits at its budget card with no process; `approve`
resumes the same thread (`codex exec resume`: the model's next request carries the earlier
turns, then the note that it may go on) and the job integrates."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from desk.agents.presets import preset_command
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, Principal
from desk.holds.budget_cards import GO_ON_MESSAGE, BudgetAnswer, BudgetReason
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.real_agents.budget_pauses import budget_card, holds_no_process, paused
from tests.helpers.real_agents.other_clis import NOTES, RELEASES, REPO, make_codex_home
from tests.helpers.real_agents.other_clis import agent_env as agent_env
from tests.helpers.real_agents.other_clis import fake as fake
from tests.helpers.real_agents.other_clis import settings as settings
from tests.helpers.waiting import awaited
from tests.real_agents.agent_env import on_path
from tests.real_agents.fake_anthropic import IfTold, told
from tests.real_agents.fake_openai import FakeOpenAI, shell
from tests.real_agents.install import release_cli

pytestmark = pytest.mark.timeout(600)
BUDGET = timedelta(seconds=20)
GO_ON_WORDS = GO_ON_MESSAGE[:40]
CHANGELOG = (
    "test -e CHANGELOG.md || (echo '- notes' > CHANGELOG.md && git add CHANGELOG.md"
    " && git commit -q -m 'Add the changelog'); echo ok"
)


@pytest.mark.parametrize("release", RELEASES)
async def test_approve_resumes_codexs_thread_with_another_budget_and_the_job_integrates(
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
    # codex's shell hands a long command back to the model after a while: the model calls it
    # again and again until the budget stops the run; once told it may go on, it adds the
    # changelog (again a no-op), whichever turn the resumed thread counts.
    forever = shell(f"while [ ! -e {gates / 'never'} ]; do sleep 0.1; done")
    fake.steps = [shell(NOTES), *[IfTold(GO_ON_WORDS, shell(CHANGELOG), forever)] * 8]
    fake.final = "Added the changelog."
    make_codex_home(tmp_path / "codex-home", fake.url, monkeypatch)
    info = await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "write notes", agent_command=preset_command("codex"), budget=BUDGET
    )
    status = await paused(desk, number)
    [pause] = status.budget_pauses
    assert pause.reason == BudgetReason.TIME, pause
    holds_no_process(status.worktree)
    card = await budget_card(desk)
    assert card.request.budget is not None
    assert [c.subject for c in card.request.budget.commits] == ["Add notes"]

    await ApprovalsClient(desk.client).answer(
        card.approval_id, Decision.APPROVE, Principal(id=settings.owner, name="alice")
    )
    report = await awaited(desk.wait(number), "the job's report")
    log = Path(report.log_path).read_text() if report.log_path else ""
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert [commit.subject for commit in report.commits] == ["Add notes", "Add the changelog"]
    assert (Path(info.path) / "CHANGELOG.md").read_text() == "- notes\n"
    [answered] = report.budget_pauses
    assert answered.answer == BudgetAnswer.GO_ON, answered
    # The same thread: the first request with the note carries the earlier turns.
    after = next(body for body in fake.conversation() if told(body, GO_ON_WORDS))
    earlier = json.dumps(after.get("input"))
    assert "Add notes" in earlier and earlier.count(GO_ON_WORDS) == 1, earlier[-2000:]
    assert "codedesk: resuming session" in log, log
