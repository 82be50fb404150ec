"""A job whose agent the job itself stops still reports what the agent spent: the run ends
with its result (not a bare cancellation) when the work budget runs out or the job is
cancelled, and the job's total is in its report and its cost attribute (issue 29)."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

from desk.names import job_workflow_id
from desk.payloads.jobs import JobOutcome
from surfaces.clients.agent_lines import agent_lines
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.waiting import awaited, eventually

REPO = "acme/api"
SPENT = "usage:" + json.dumps({"output_tokens": 40, "cost": "0.25", "model": "m"})


async def _reported(desk: DeskClient, number: int) -> None:
    """Wait until the agent's heartbeat carries its usage: the worker has heard the report."""

    async def seen() -> object:
        return (await agent_lines(desk.client, job_workflow_id(number))).usage

    await eventually(seen, lambda usage: usage is not None and usage.cost, "the agent's usage")


async def test_an_agent_out_of_budget_reports_what_it_spent(desk: DeskClient, origin: Path) -> None:
    await desk.add_repo(REPO, str(origin))
    steps = (SPENT, "write:a.txt=a", "commit:a", "say:working on", "sleep:300")
    number = await desk.start_job(
        REPO, "spend", agent_command=agent(*steps), budget=timedelta(seconds=20)
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.TIMED_OUT, report
    assert report.usage is not None and report.usage.cost == Decimal("0.25"), report
    assert report.usage.output_tokens == 40, report
    assert "working on" in report.output, report
    assert [commit.subject for commit in report.commits] == ["a"], report


async def test_a_cancelled_job_reports_what_its_agent_spent(desk: DeskClient, origin: Path) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "spend", agent_command=agent(SPENT, "sleep:300"))
    await _reported(desk, number)
    await desk.cancel(number)
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.CANCELLED, report
    assert report.usage is not None and report.usage.cost == Decimal("0.25"), report
