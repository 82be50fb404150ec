"""Shipping end to end: report, push request, an owner's approval, the exact SHA on origin."""

from __future__ import annotations

from pathlib import Path

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, Principal
from desk.payloads.jobs import JobOutcome
from desk.payloads.ship_payloads import PushStatus
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.ship_client import ShippingClient
from tests.helpers.agents import agent
from tests.helpers.repos import git
from tests.helpers.waiting import eventually


async def test_report_push_approve_ships_exactly_the_reported_sha(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    number = await desk.start_job(
        "acme/api", "greet", agent_command=agent("write:hello.txt=hi", "commit:greet")
    )
    assert (await desk.wait(number)).outcome == JobOutcome.INTEGRATED
    shipping = ShippingClient(desk.client, settings)
    report = await shipping.change_report("acme/api")
    assert [c.subject for c in report.commits] == ["greet"]
    assert report.default_branch == "main"
    assert [f.path for f in report.files] == ["hello.txt"]
    handle, approval = await shipping.request_push("acme/api", report.head)
    approvals = ApprovalsClient(desk.client)
    await eventually(
        approvals.open_approvals,
        lambda states: any(s.approval_id == approval for s in states),
        f"approval {approval} to open",
    )
    assert git(origin, "rev-parse", "main") != report.head
    result, _ = await approvals.answer(approval, Decision.APPROVE, Principal(id=settings.owner))
    assert result.counted, result
    pushed = await handle.result()
    assert pushed.status == PushStatus.PUSHED, pushed
    assert git(origin, "rev-parse", "main") == report.head
