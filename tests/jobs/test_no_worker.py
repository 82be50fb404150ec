"""With the server up and no worker, commands say so at once instead of hanging or timing out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.holds.approvals import ApprovalRequest, OutcomeKind, approval_id
from tests.helpers.cli_helpers import assert_refused, run_cli, settings_env, shown
from workers.desk_handle import configure_desk
from workers.worker import build_worker
from workflows.shipping.approval import Approval

NO_WORKER = "No codedesk worker is polling task queue"


@pytest.mark.parametrize(
    "command",
    [
        ["task", "acme/api", "do it"],
        ["repo", "list"],
        ["repo", "add", "acme/api", "--from", "/nowhere"],
        ["approvals"],
        ["report", "acme/api"],
        ["push", "acme/api", "a" * 40],
    ],
)
async def test_a_command_that_needs_a_worker_refuses_at_once(
    settings: DeskSettings, tmp_path: Path, command: list[str]
) -> None:
    result = await run_cli(settings_env(settings), *command, cwd=tmp_path)
    assert_refused(result, NO_WORKER, settings.task_queue, "codedesk up", "codedesk worker")
    assert "job" not in result.stdout, shown(result)


async def test_jobs_lists_without_waiting_for_a_worker_and_says_none_polls(
    settings: DeskSettings, tmp_path: Path
) -> None:
    result = await run_cli(settings_env(settings), "jobs", "--json", cwd=tmp_path)
    assert result.returncode == 0, shown(result)
    assert json.loads(result.stdout) == []
    assert NO_WORKER in result.stderr and "queue positions" in result.stderr, shown(result)


async def test_jobs_says_nothing_of_workers_while_one_polls(
    settings: DeskSettings, client: Client, tmp_path: Path
) -> None:
    async with build_worker(client, settings):
        await configure_desk(client, settings)
        result = await run_cli(settings_env(settings), "jobs", cwd=tmp_path)
    assert result.returncode == 0, shown(result)
    assert "No jobs yet" in result.stdout and NO_WORKER not in result.stderr, shown(result)


async def test_approve_without_a_worker_sends_a_durable_signal_and_says_why(
    settings: DeskSettings, client: Client, tmp_path: Path
) -> None:
    request = ApprovalRequest(
        tool="Bash", input={"command": "git push"}, scope="job-1", owners=[settings.owner]
    )
    ident = approval_id("job-1", "Bash", request.input)
    handle = await client.start_workflow(
        Approval.run, request, id=ident, task_queue=settings.task_queue
    )

    approved = await run_cli(settings_env(settings), "approve", ident, cwd=tmp_path)
    assert approved.returncode == 0, shown(approved)
    assert NO_WORKER in approved.stdout and "durable signal" in approved.stdout, shown(approved)

    async with build_worker(client, settings):  # the answer counts once a worker runs
        outcome = await handle.result()
    assert outcome.kind == OutcomeKind.APPROVED
    assert outcome.by is not None and outcome.by.id == settings.owner
