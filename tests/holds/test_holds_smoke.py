"""A hold end to end: the agent blocks on a risky call until a person approves it."""

from __future__ import annotations

import json
from pathlib import Path

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, HoldVerdict, Principal
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.job_waits import open_ids

PUSH = json.dumps({"tool": "Bash", "input": {"command": "git push origin main"}})


async def _open_approval(approvals: ApprovalsClient) -> str:
    [ident, *_] = await open_ids(approvals)
    return ident


async def test_approved_hold_lets_the_call_run(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    number = await desk.start_job(
        "acme/api",
        "push it",
        agent_command=agent(f"hold:{PUSH}", "write:pushed.txt=yes", "commit:after the push"),
    )
    approvals = ApprovalsClient(desk.client)
    ident = await _open_approval(approvals)
    assert ident.startswith(f"approval-job-{number}-")
    owner = Principal(id=settings.owner)
    result, by_signal = await approvals.answer(ident, Decision.APPROVE, owner)
    assert result.counted and not by_signal, result
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [c.subject for c in report.commits] == ["after the push"]
    assert report.held_calls == []


async def test_declined_hold_is_reported_and_the_call_skipped(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    number = await desk.start_job(
        "acme/api",
        "push it",
        agent_command=agent(f"hold:{PUSH}", "write:pushed.txt=yes", "commit:after the push"),
    )
    approvals = ApprovalsClient(desk.client)
    ident = await _open_approval(approvals)
    stranger, _ = await approvals.answer(ident, Decision.APPROVE, Principal(id="someone:else"))
    assert not stranger.counted and "may not answer" in stranger.reason
    result, _ = await approvals.answer(ident, Decision.DECLINE, Principal(id=settings.owner))
    assert result.counted
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.NOTHING, report
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.DECLINED]
    assert "Do not retry" in report.output
