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
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk import DeskClient
from tests.helpers.agents import agent
from tests.helpers.waiting import awaited
from workers.desk_entity import configure_desk
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
