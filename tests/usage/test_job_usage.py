"""A job's usage: what its agent reports on the hold channel reaches its report, and a
100-step agent that reports after every step adds no event to the job's history."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from desk.payloads.jobs import JobOutcome
from desk.usage.tally import Usage
from surfaces.clients.desk_client import DeskClient
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain
from tests.helpers.agents import agent, usage_step
from tests.helpers.waiting import awaited

REPO = "acme/api"


async def test_reported_usage_is_added_into_the_report(desk: DeskClient, origin: Path) -> None:
    await desk.add_repo(REPO, str(origin))
    steps = (
        usage_step(input_tokens=1200, output_tokens=300, cached_tokens=5, cost="0.0123", model="m"),
        usage_step(input_tokens=800, output_tokens=100, cost=0.0077, model="m"),
        "write:a.txt=a",
        "commit:a",
    )
    number = await desk.start_job(REPO, "spend", agent_command=agent(*steps))
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.usage == Usage(
        input_tokens=2000, output_tokens=400, cached_tokens=5, cost=Decimal("0.0200"), model="m"
    )
    assert "usage: 2,000 tokens in, 400 out, 5 cached (m); $0.0200" in "\n".join(
        plain(job_report(report))
    )


async def test_a_report_without_cost_says_cost_unknown(desk: DeskClient, origin: Path) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "spend", agent_command=agent(usage_step(output_tokens=9)))
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.usage is not None and report.usage.cost is None
    assert "9 out, 0 cached; cost unknown" in "\n".join(plain(job_report(report)))


async def test_a_hundred_reports_add_no_history(desk: DeskClient, origin: Path) -> None:
    await desk.add_repo(REPO, str(origin))
    events: dict[int, int] = {}
    for count in (0, 100):
        steps = [usage_step(input_tokens=10, output_tokens=1, cost="0.001")] * count
        number = await desk.start_job(REPO, "steps", agent_command=agent(*steps, "say:done"))
        report = await awaited(desk.wait(number), f"job {number}'s report")
        assert report.outcome == JobOutcome.NOTHING, report
        used = report.usage or Usage()
        assert (used.input_tokens, used.cost) == (10 * count, Decimal("0.001") * count or None)
        events[count] = len([e async for e in desk.job(number).fetch_history_events()])
    # The first job of a desk has a few events more (its slot, its repository): not per report.
    assert events[100] <= events[0] + 10, events
