"""The sandbox with the network on: the agent gets out only through the worker's egress proxy."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from tests.helpers.agent_runs.sandboxes import (
    REPO,
    Sandboxed,
    hostile_command,
    needs_bwrap,
    open_victim_approval,
    outside,
    sandboxed_desk,
)
from tests.helpers.agents import agent
from tests.helpers.repos import git
from tests.helpers.stand_ins.local_http import BODY, Served, http_server

__all__ = ["outside"]
pytestmark = needs_bwrap


@pytest.fixture
def model_api() -> Iterator[Served]:
    """A stand-in for the model's API, on the worker's loopback like a test's fake model."""
    with http_server() as served:
        yield served


@pytest.fixture
async def online_egress(
    client: Client,
    settings: DeskSettings,
    outside: Path,
    monkeypatch: pytest.MonkeyPatch,
    model_api: Served,
) -> AsyncIterator[Sandboxed]:
    allow = ["*", f"127.0.0.1:{model_api.port}"]
    async for box in sandboxed_desk(client, settings, outside, monkeypatch, True, egress=allow):
        yield box


async def test_an_online_hostile_agent_reaches_the_model_api_but_never_temporal(
    online_egress: Sandboxed, model_api: Served
) -> None:
    box = online_egress
    approvals = ApprovalsClient(box.desk.client)
    ident = await open_victim_approval(box)
    origin_main = git(box.origin, "rev-parse", "main")
    command = hostile_command(box, ident, fetch=f"{model_api.url}/v1/messages")

    number = await box.desk.start_job(REPO, "be hostile online", agent_command=command)
    report = await box.desk.wait(number)

    assert report.outcome == JobOutcome.INTEGRATED, report
    assert "hostile agent: done" in report.output, report.output
    # Seen from the outside: the approval is still open, the model API was reached through
    # the proxy, and the proxy refused the frontend (in the job's log, with the reason).
    assert ident in [state.approval_id for state in await approvals.open_approvals()]
    assert model_api.paths == ["/v1/messages"]
    log = Path(report.log_path).read_text()
    refusal = f"egress refused 'CONNECT {box.settings.temporal_address} HTTP/1.1'"
    assert refusal in log and "is the Temporal frontend" in log, log
    assert git(box.origin, "rev-parse", "main") == origin_main
    assert git(box.clone, "log", "--format=%s", "main").splitlines() == ["ordinary", "initial"]
    for attack in ("codedesk approve", "direct Temporal call", "tcp to Temporal"):
        assert f"attack {attack}: failed" in report.output, report.output
    assert "attack proxy to Temporal: failed: RuntimeError: HTTP/1.1 403 Forbidden" in report.output
    assert f"attack fetch through the proxy: done {BODY.decode().strip()}" in report.output
    await approvals.withdraw(ident, "test over", by="test")


async def test_an_ordinary_online_job_integrates_with_the_proxy_in_its_environment(
    online_egress: Sandboxed,
) -> None:
    number = await online_egress.desk.start_job(
        REPO, "edit", agent_command=agent("write:notes.txt=hello", "commit:add notes", "env-all")
    )
    report = await online_egress.desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["add notes"]
    shown = json.loads(report.output.split("scripted agent: env ", 1)[1].splitlines()[0])
    assert {"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"} <= set(
        shown["names"]
    ), shown


@pytest.fixture
async def offline_egress(
    client: Client,
    settings: DeskSettings,
    outside: Path,
    monkeypatch: pytest.MonkeyPatch,
    model_api: Served,
) -> AsyncIterator[Sandboxed]:
    allow = ["*", f"127.0.0.1:{model_api.port}"]
    async for box in sandboxed_desk(client, settings, outside, monkeypatch, False, egress=allow):
        yield box


async def test_without_the_network_not_even_an_allowed_destination_is_reached(
    offline_egress: Sandboxed, model_api: Served
) -> None:
    box = offline_egress
    attacks = ["tcp to Temporal", "proxy to Temporal", "fetch through the proxy"]
    command = hostile_command(box, "no-approval", fetch=model_api.url, only=attacks)
    number = await box.desk.start_job(REPO, "no network", agent_command=command)
    report = await box.desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert model_api.paths == []
    assert "egress refused" not in Path(report.log_path).read_text()
    for attack in attacks:
        assert f"attack {attack}: failed" in report.output, report.output
