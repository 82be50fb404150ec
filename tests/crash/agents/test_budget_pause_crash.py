"""A worker SIGKILLed while the real codex's job waits at its budget card (issue 47): nothing of
the job runs meanwhile, the "go on" is given while no worker runs at all, and once a worker comes
back the job resumes codex's thread once, with the note that it may go on, and integrates once."""

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
from desk.holds.approvals import Decision, Principal
from desk.holds.budget_cards import GO_ON_MESSAGE, BudgetAnswer
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import REPO, kill
from tests.helpers.agent_pids import job_processes
from tests.helpers.agent_runs.codex_resume import worker_env
from tests.helpers.cli_helpers import run_cli, shown, started_number
from tests.helpers.processes import StartWorker
from tests.helpers.real_agents.budget_pauses import budget_card, paused
from tests.helpers.repos import git
from tests.helpers.waiting import awaited
from tests.real_agents.fake_anthropic import IfTold, told
from tests.real_agents.fake_openai import FakeOpenAI, serving, shell

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap here"),
]
GO_ON_WORDS = GO_ON_MESSAGE[:40]
CHANGELOG = (
    "test -e CHANGELOG.md || (echo '- notes' > CHANGELOG.md && git add CHANGELOG.md"
    " && git commit -q -m 'Add the changelog'); echo ok"
)


@pytest.fixture
def fake(gates: Path) -> Iterator[FakeOpenAI]:
    # codex hands a long command back to the model now and then: the model calls it again until
    # the budget stops the run; told it may go on, it adds the changelog (a no-op after once).
    forever = shell(f"while [ ! -e {gates / 'never'} ]; do sleep 0.1; done")
    script = [
        shell("echo notes > NOTES.md && git add NOTES.md && git commit -q -m 'Add notes'"),
        *[IfTold(GO_ON_WORDS, shell(CHANGELOG), forever)] * 8,
    ]
    with serving(FakeOpenAI(steps=script, final="Added the changelog.")) as running:
        yield running


async def test_a_go_on_given_while_no_worker_runs_resumes_the_paused_codex_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    fake: FakeOpenAI,
) -> None:
    env = worker_env(settings, fake, tmp_path)
    env.update(CODEDESK_MAX_WORKERS="1")
    first: subprocess.Popen[bytes] = start_worker(env)
    added = await run_cli(env, "repo", "add", REPO, "--from", str(origin), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    started = await run_cli(
        env,
        "task",
        REPO,
        "write notes",
        "--agent-command",
        preset_command("codex"),
        "--timeout",
        "20s",
        cwd=tmp_path,
    )
    assert started.returncode == 0, shown(started)
    number = started_number(started)
    desk = DeskClient(client, settings)
    status = await paused(desk, number)
    card = await budget_card(desk)
    assert job_processes(status.worktree) == []
    asked_before = len(fake.conversation())

    await kill(first)  # no worker runs now: the answer waits in the card's history
    approvals = ApprovalsClient(client)
    _, by_signal = await approvals.answer(
        card.approval_id, Decision.APPROVE, Principal(id=settings.owner, name="alice")
    )
    assert by_signal, "a worker took the answer"
    assert len(fake.conversation()) == asked_before and job_processes(status.worktree) == []
    start_worker(env)

    report = await awaited(desk.wait(number), "the job's report")
    log = Path(report.log_path).read_text()
    assert report.outcome == JobOutcome.INTEGRATED, (report, log)
    assert [commit.subject for commit in report.commits] == ["Add notes", "Add the changelog"]
    [pause] = report.budget_pauses
    assert (pause.answer, pause.by) == (BudgetAnswer.GO_ON, "alice"), pause
    # Resumed once: one run resumed the thread with the note, which the model read once.
    assert log.count("codedesk: resuming session") == 1, log
    after = [body for body in fake.conversation() if told(body, GO_ON_WORDS)]
    assert after and all(json.dumps(body["input"]).count(GO_ON_WORDS) == 1 for body in after)
    assert await approvals.open_approvals() == []
    clone = settings.shelf_dir / "acme" / "api"
    assert git(clone, "status", "--porcelain") == ""
