"""A push whose SHA the clone moved past is withdrawn; a push that is done is shown, not redone."""

from __future__ import annotations

import json
from pathlib import Path

from temporalio.client import WorkflowHandle

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, OutcomeKind
from desk.payloads.jobs import JobOutcome
from desk.payloads.ship_payloads import PushResult, PushStatus
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.ship_client import ShippingClient
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from tests.helpers.jobs.shipping import REPO, answer, commit, refs, result_of
from tests.helpers.waiting import until
from workflows.shipping.approval import Approval
from workflows.shipping.ship import Ship


async def _open(shipping: ShippingClient, ident: str) -> bool:
    return ident in [
        state.approval_id for state in await ApprovalsClient(shipping.client).open_approvals()
    ]


async def _waiting_push(
    shipping: ShippingClient, clone: Path
) -> tuple[str, WorkflowHandle[Ship, PushResult], str]:
    """A reported commit whose push waits for an owner: its SHA, the push and its approval."""
    older = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    handle, ident = await shipping.request_push(REPO, older)
    await until(lambda: _open(shipping, ident), "the push's approval")
    return older, handle, ident


async def test_a_newer_report_withdraws_the_waiting_push_of_an_older_sha(
    shipping: ShippingClient, clone: Path, origin: Path
) -> None:
    before = refs(origin)
    older, handle, ident = await _waiting_push(shipping, clone)
    newer = commit(clone, "b.txt", "b\n", "b")
    await shipping.change_report(REPO)
    result = await result_of(handle)
    assert result.status == PushStatus.WITHDRAWN, result
    assert f"the clone moved on past {older[:12]}" in result.reason
    assert f"a newer change report names {newer}" in result.reason
    outcome = await shipping.client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.WITHDRAWN
    assert not await _open(shipping, ident)
    assert refs(origin) == before


async def test_an_integration_withdraws_the_waiting_push_of_the_sha_it_moved_past(
    desk: DeskClient, shipping: ShippingClient, clone: Path, origin: Path
) -> None:
    before = refs(origin)
    _, handle, _ = await _waiting_push(shipping, clone)
    number = await desk.start_job(REPO, "more", agent_command=agent("write:c.txt=c", "commit:c"))
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report.reason
    result = await result_of(handle)
    assert result.status == PushStatus.WITHDRAWN, result
    assert f"job {number} integrated, the clone is at {report.head}" in result.reason
    assert refs(origin) == before


async def test_asking_again_for_a_push_that_is_done_shows_its_result(
    shipping: ShippingClient, settings: DeskSettings, clone: Path, origin: Path, tmp_path: Path
) -> None:
    head = commit(clone, "a.txt", "a\n", "a")
    await shipping.change_report(REPO)
    handle, ident = await shipping.request_push(REPO, head)
    await until(lambda: _open(shipping, ident), "the push's approval")
    await answer(shipping.client, ident, Decision.APPROVE, settings.owner)
    assert (await result_of(handle)).status == PushStatus.PUSHED
    done = await shipping.finished_push(REPO, head)
    assert done is not None and done.sha == head

    env = settings_env(settings)
    again = await run_cli(env, "push", REPO, head, "--wait", cwd=tmp_path)
    assert again.returncode == 0, shown(again)
    assert f"The push of {head} to {REPO} is done already" in again.stdout
    assert "approve it" not in again.stdout
    as_json = await run_cli(env, "push", REPO, head, "--wait", "--json", cwd=tmp_path)
    assert json.loads(as_json.stdout)["status"] == "pushed", shown(as_json)
    assert await ApprovalsClient(shipping.client).open_approvals() == []
