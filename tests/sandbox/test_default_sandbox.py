"""Tests run agents as users do: in the default sandbox, unless a test says why not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from activities.sandbox.bubblewrap import BWRAP, UNCONFINED, choose_sandbox
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import cli_env, settings_env

REPO = "acme/api"
# Skipped only off CI: CI (.ci/run) must prove the default path, so there it fails instead.
needs_bwrap = pytest.mark.skipif(
    choose_sandbox("auto").mode != BWRAP and not os.environ.get("CI"),
    reason="bubblewrap does not work on this host",
)


@needs_bwrap
async def test_a_job_of_the_default_settings_runs_its_agent_in_bubblewrap(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    # No sandbox setting in the test's settings or console scripts: the product's default.
    assert settings.sandbox == "auto"
    assert "CODEDESK_SANDBOX" not in cli_env()
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "confined", agent_command=agent("write:a.txt=a", "commit:add a")
    )
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.confinement == BWRAP, report
    assert ", sandbox bwrap ===" in Path(report.log_path).read_text()


@pytest.mark.unconfined("proves the marker: this test's agents run without the sandbox")
async def test_a_test_marked_unconfined_runs_its_agents_unconfined(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    assert settings.sandbox == UNCONFINED
    assert cli_env()["CODEDESK_SANDBOX"] == UNCONFINED
    assert settings_env(settings)["CODEDESK_SANDBOX"] == UNCONFINED
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "unconfined", agent_command=agent("say:hi"))
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.NOTHING, report
    assert report.confinement == UNCONFINED, report
