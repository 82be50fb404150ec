"""Which approval an id argument names: a whole id or a unique part of one, as the help says."""

from __future__ import annotations

from pathlib import Path

import pytest

from desk.config.settings import DeskSettings
from desk.errors import ApprovalNotFoundError
from desk.holds.approvals import HoldAnswer, HoldRequest, HoldVerdict, approval_id
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient, match_approval
from surfaces.clients.desk_client import DeskClient
from tests.helpers.cli_helpers import assert_refused, run_cli, settings_env, shown
from tests.helpers.job_waits import open_ids, working_job
from tests.helpers.waiting import awaited
from workflows.job.coding_job import CodingJob

PUSH = {"command": "git push origin main && rm -rf /"}
SEVEN = approval_id("job-7", "Bash", PUSH)
TWELVE = approval_id("job-12", "Bash", PUSH)
SHIP = approval_id("push-acme/api", "git_push", {"sha": "a" * 40})
OPEN = [SEVEN, TWELVE, SHIP]


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (SEVEN, SEVEN),
        (SEVEN.removeprefix("approval-"), SEVEN),
        ("job-7", SEVEN),
        ("approval-job-7", SEVEN),
        ("job-7-", SEVEN),
        (SEVEN[:-10], SEVEN),
        ("job-12", TWELVE),
        ("12", TWELVE),
        ("push-acme/api", SHIP),
        ("acme/api", SHIP),
        (SHIP[-14:-8], SHIP),
        ("7-" + SEVEN[-16:-10], SEVEN),
    ],
)
def test_a_whole_id_or_a_unique_part_of_one_names_it(given: str, named: str) -> None:
    assert match_approval(given, OPEN) == named


@pytest.mark.parametrize(
    "given",
    [
        "job",
        "approval-job",
        "approval-push-",
        "jo",
        "",
        "approval-",
        "push",
        "nope",
        "job-1",
        "ob-1",
    ],
)
def test_a_part_of_no_id_or_of_its_lead_alone_or_cutting_a_number_names_none(given: str) -> None:
    with pytest.raises(ApprovalNotFoundError, match="No open approval has .* in its id"):
        match_approval(given, OPEN)


def test_one_open_approval_is_not_answered_by_the_lead_all_ids_share() -> None:
    with pytest.raises(ApprovalNotFoundError):
        match_approval("job", [SEVEN])


def test_a_part_of_several_ids_lists_every_candidate() -> None:
    other = approval_id("job-7", "Bash", {"command": "git push origin other"})
    with pytest.raises(ApprovalNotFoundError) as refused:
        match_approval("job-7", [SEVEN, other, TWELVE])
    message = str(refused.value)
    assert "matches 2 open approvals" in message
    assert SEVEN in message and other in message and TWELVE not in message
    # The same call in two jobs has the same digest: a part of it names both.
    with pytest.raises(ApprovalNotFoundError, match="matches 2 open approvals"):
        match_approval(SEVEN[-16:], OPEN)


def test_a_whole_settled_id_is_passed_on_to_be_told_it_no_longer_counts() -> None:
    assert match_approval(SEVEN, []) == SEVEN


async def test_approve_job_with_one_open_approval_is_refused(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    number = await working_job(desk, origin)
    answer: HoldAnswer = await desk.job(number).execute_update(
        CodingJob.hold, HoldRequest(tool="Bash", input=PUSH, wait_seconds=0.1)
    )
    assert answer.verdict == HoldVerdict.PENDING, answer
    [ident] = await open_ids(ApprovalsClient(desk.client))

    env = settings_env(settings)
    refused = await run_cli(env, "approve", "job", cwd=tmp_path)
    assert_refused(refused, "No open approval has 'job' in its id")
    still = await ApprovalsClient(desk.client).open_approvals()
    assert [state.approval_id for state in still] == [ident]
    assert still[0].outcome is None

    declined = await run_cli(env, "decline", f"job-{number}", cwd=tmp_path)
    assert declined.returncode == 0, shown(declined)
    assert f"{ident}: declined." in declined.stdout

    await desk.cancel(number)
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.CANCELLED
