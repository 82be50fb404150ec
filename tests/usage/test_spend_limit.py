"""The job's spend limit (CODEDESK_JOB_SPEND_LIMIT) stops an agent that keeps spending past it,
with its commits kept and the report saying which limit and how much was spent."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path

import pytest
from temporalio.client import Client

from desk.config.settings import DeskSettings, load_settings
from desk.errors import PolicyError
from desk.payloads.jobs import JobOutcome
from desk.policy.host import HostPolicy, JobAsk, asked_spend_limit, judged_spend_limit
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.waiting import awaited
from workers.desk_handle import configure_desk
from workers.worker import build_worker

REPO = "acme/api"


@pytest.fixture
async def limited(settings: DeskSettings, client: Client) -> AsyncIterator[DeskClient]:
    """A desk whose jobs may spend $1 each."""
    strict = load_settings(**{**settings.model_dump(), "job_spend_limit": "1"})
    async with build_worker(client, strict):
        await configure_desk(client, strict)
        yield DeskClient(client, strict)


def step(**fields: object) -> str:
    return "usage:" + json.dumps(fields)


async def test_an_agent_past_its_spend_limit_is_stopped(limited: DeskClient, origin: Path) -> None:
    await limited.add_repo(REPO, str(origin))
    steps = (
        "write:a.txt=a",
        "commit:a",
        step(output_tokens=100, cost="0.6"),
        step(output_tokens=100, cost="0.6"),
        "sleep:300",  # a model that would keep working: only the limit ends it
        "write:b.txt=b",
        "commit:b",
    )
    number = await limited.start_job(REPO, "spend", agent_command=agent(*steps))
    report = await awaited(limited.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.FAILED, report
    assert "spent 1.2 USD, at the job's spend limit $1" in report.reason, report
    assert report.usage is not None and report.usage.cost == Decimal("1.2"), report
    assert [commit.subject for commit in report.commits] == ["a"], report
    assert report.branch_kept, report


async def test_tokens_at_an_unknown_cost_stop_a_limited_job(
    limited: DeskClient, origin: Path
) -> None:
    await limited.add_repo(REPO, str(origin))
    steps = (step(input_tokens=5000), "sleep:300")
    number = await limited.start_job(REPO, "spend", agent_command=agent(*steps))
    report = await awaited(limited.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.FAILED, report
    assert "5,000 tokens at a cost nobody knows" in report.reason, report
    assert "CODEDESK_PRICES" in report.reason, report


async def test_under_the_limit_the_job_ends_as_its_agent_does(
    limited: DeskClient, origin: Path
) -> None:
    await limited.add_repo(REPO, str(origin))
    steps = (step(output_tokens=1, cost="0.99"), "write:a.txt=a", "commit:a")
    number = await limited.start_job(REPO, "spend", agent_command=agent(*steps))
    report = await awaited(limited.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.INTEGRATED, report


async def test_a_task_may_ask_for_a_stricter_spend_limit(desk: DeskClient, origin: Path) -> None:
    """No limit on the host; the task asks for $0.50 and is stopped by it."""
    await desk.add_repo(REPO, str(origin))
    steps = ("write:a.txt=a", "commit:a", step(output_tokens=10, cost="0.6"), "sleep:300")
    number = await desk.start_job(
        REPO, "spend", agent_command=agent(*steps), spend_limit=Decimal("0.50")
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.FAILED, report
    assert "at the job's spend limit $0.50" in report.reason, report


async def test_a_task_may_not_ask_for_more_than_the_hosts_spend_limit(
    limited: DeskClient, origin: Path
) -> None:
    await limited.add_repo(REPO, str(origin))
    with pytest.raises(PolicyError, match=r"above the host's limit of \$1"):
        await limited.start_job(REPO, "spend", agent_command=agent(), spend_limit=Decimal("5"))
    number = await limited.start_job(
        REPO,
        "spend",
        agent_command=agent(step(cost="0.6"), "sleep:300"),
        spend_limit=Decimal("0.5"),
    )
    report = await awaited(limited.wait(number), f"job {number}'s report")
    assert "at the job's spend limit $0.5" in report.reason, report


@pytest.mark.parametrize("typed", ["0", "-1", "abc", "NaN", ""])
def test_a_typed_spend_limit_must_be_a_positive_amount(typed: str) -> None:
    with pytest.raises(PolicyError, match="not a positive amount of US dollars"):
        asked_spend_limit(typed)


def test_a_typed_spend_limit_reads_dollars() -> None:
    assert asked_spend_limit("$2.50") == Decimal("2.50")
    host = HostPolicy(job_spend_limit=Decimal("3"))
    assert judged_spend_limit(JobAsk(), host) == Decimal("3")
    assert judged_spend_limit(JobAsk(spend_limit=Decimal("1")), host) == Decimal("1")
    assert judged_spend_limit(JobAsk(spend_limit=Decimal("1")), HostPolicy()) == Decimal("1")
