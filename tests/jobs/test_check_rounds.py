"""A failed check goes back to the agent (issue 46): its tail is a message to the agent's
session, the agent works again in the same worktree, and the check runs again, up to the
owner's `check_retries`; each run of the check is a round in the job's report.

The agents are scripted command agents: a run after the first reads the check's message from
its messages file (`if-told:STEP` prints it, then runs STEP), as a model reads its prompt."""

from __future__ import annotations

from pathlib import Path

from temporalio.api.sdk.v1 import WorkflowMetadata

from activities.agent.session.log import AGENT_LOG
from activities.shelf_paths import job_dir
from desk.config.settings import DeskSettings
from desk.names import job_workflow_id
from desk.payloads.jobs import JobOutcome, JobPhase
from desk.records.repo_setup import CheckStatus, SetRepoSetup
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.repo_setup_client import RepoSetupClient
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from tests.helpers.repos import git
from tests.helpers.waiting import eventually

REPO = "acme/api"
CHECK = "test -f fixed.txt || { echo 'tests: 1 failed: fixed.txt is missing'; exit 3; }"
FIX = ("if-told:write:fixed.txt=ok", "if-told:commit:fix the check")


async def repo_checked(
    desk: DeskClient, settings: DeskSettings, origin: Path, **setup: object
) -> Path:
    clone = Path((await desk.add_repo(REPO, str(origin))).path)
    change = SetRepoSetup.model_validate({"repo": REPO, **setup})
    await RepoSetupClient(desk.client, settings).configure(change)
    return clone


def agent_log(settings: DeskSettings, number: int) -> str:
    path = job_dir(settings, number) / AGENT_LOG
    return path.read_text() if path.is_file() else ""


async def test_a_check_that_fails_once_goes_back_to_the_agent_and_the_fix_integrates(
    desk: DeskClient, settings: DeskSettings, origin: Path, gates: Path, tmp_path: Path
) -> None:
    clone = await repo_checked(desk, settings, origin, check=CHECK)
    go_on = gates / "fix-may-end"
    number = await desk.start_job(
        REPO,
        "add notes",
        agent_command=agent(
            "write:notes.txt=hello", "commit:add notes", f"if-told:wait:{go_on}", *FIX
        ),
    )
    # While the agent fixes: the Temporal UI's current details and `show` say so.
    handle = desk.client.get_workflow_handle(job_workflow_id(number))

    async def details() -> str:
        metadata = await handle.query("__temporal_workflow_metadata", result_type=WorkflowMetadata)
        return metadata.current_details

    said = await eventually(
        details, lambda said: "fixing" in said, "the job to say it fixes the check"
    )
    assert said == f"Job {number} on `{REPO}`: fixing the failed check, round 1 of 2"
    _, current = await desk.status(number)
    assert current.phase == JobPhase.WORKING
    [fixing] = current.check_rounds
    assert (fixing.round, fixing.status, fixing.exit_code) == (1, CheckStatus.FAILED, 3)
    shown_now = await run_cli(settings_env(settings), "show", str(number), cwd=tmp_path)
    assert "check rounds (1)" in shown_now.stdout, shown(shown_now)
    assert "round 1: failed, exit code 3; sent to the agent as message 1:" in shown_now.stdout
    go_on.touch()
    report = await desk.wait(number)

    assert report.outcome == JobOutcome.INTEGRATED, report
    assert git(clone, "log", "--format=%s", "main").splitlines() == [
        "fix the check",
        "add notes",
        "initial",
    ]
    first, second = report.check_rounds
    assert first.status == CheckStatus.FAILED and first.exit_code == 3
    assert first.sent == (
        f"The repository's check `{CHECK}` failed (exit 3):\n"
        "tests: 1 failed: fixed.txt is missing\nFix it and commit."
    )
    assert (second.round, second.status, second.sent) == (2, CheckStatus.PASSED, "")
    assert report.check is not None and report.check.status == CheckStatus.PASSED
    # The agent's second run was told the tail: the check's message, delivered to run 2.
    [message] = report.messages
    assert (message.seq, message.by.id, message.text) == (1, "codedesk:check", first.sent)
    assert message.delivered is not None and message.delivered.run == 2
    log = agent_log(settings, number)
    assert "scripted agent: told 1 by codedesk check: The repository's check" in log
    assert "tests: 1 failed: fixed.txt is missing" in log
    text = "\n".join(plain(job_report(report)))
    assert "check rounds (2)" in text
    assert "round 1: failed, exit code 3; sent to the agent as message 1:" in text
    assert "round 2: passed" in text


async def test_a_check_that_fails_every_round_ends_the_job_as_before_listing_the_rounds(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    clone = await repo_checked(desk, settings, origin, check="echo 'still red'; exit 3")
    number = await desk.start_job(
        REPO, "add notes", agent_command=agent("write:notes.txt=hello", "commit:add notes", *FIX)
    )
    report = await desk.wait(number)

    assert report.outcome == JobOutcome.FAILED, report
    assert "The check `echo 'still red'; exit 3` failed (exit 3)" in report.reason
    assert report.branch_kept
    assert git(clone, "log", "--format=%s", "main").splitlines() == ["initial"]
    rounds = report.check_rounds
    assert [(r.round, r.status, r.exit_code) for r in rounds] == [
        (1, CheckStatus.FAILED, 3),
        (2, CheckStatus.FAILED, 3),
        (3, CheckStatus.FAILED, 3),
    ]
    assert [bool(r.sent) for r in rounds] == [True, True, False]
    assert [r.message_seq for r in rounds] == [1, 2, 0]
    assert [m.delivered.run if m.delivered else None for m in report.messages] == [2, 3]
    assert report.check is not None and "still red" in report.check.output


async def test_no_retries_reports_a_failed_check_at_once_as_before(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await repo_checked(desk, settings, origin, check=CHECK, check_retries=0)
    number = await desk.start_job(
        REPO, "add notes", agent_command=agent("write:notes.txt=hello", "commit:add notes", *FIX)
    )
    report = await desk.wait(number)

    assert report.outcome == JobOutcome.FAILED, report
    assert report.check is not None and report.check.exit_code == 3
    assert report.check_rounds == [] and report.messages == []
    assert agent_log(settings, number).count("skipped (no message)") == 2
    assert "check rounds" not in "\n".join(plain(job_report(report)))
