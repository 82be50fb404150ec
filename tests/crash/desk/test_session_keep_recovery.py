"""A finished job's kept session outlives a SIGKILLed worker and a restarted server: its
`SessionKeep`'s timer is the server's, and the next worker removes the session once, on time."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from activities.agent.process.launch import PRIVATE_HOME, SANDBOX_HOME
from activities.shelf_paths import job_dir
from desk.config.settings import load_settings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.crash.crashes import REPO, kill, restart_server, server_env
from tests.helpers.agents import agent
from tests.helpers.processes import StartWorker
from tests.helpers.waiting import awaited, eventually
from workers.devserver import DevServer


@pytest.mark.slow
async def test_a_kept_session_is_removed_after_a_worker_kill_and_a_server_restart(
    own_server: list[DevServer], origin: Path, tmp_path: Path, start_worker: StartWorker
) -> None:
    server = own_server[0]
    home = tmp_path / "home"
    env = server_env(server, home, CODEDESK_SESSION_KEEP="8s")
    settings = load_settings(home=home, temporal_address=server.address, heartbeat_timeout="2s")
    first = start_worker(env)
    client = await Client.connect(server.address, data_converter=pydantic_data_converter)
    desk = DeskClient(client, settings)
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "greet", agent_command=agent("write:a.txt=1", "commit:a"))
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    folder = job_dir(settings, number)
    homes = [folder / SANDBOX_HOME, folder / PRIVATE_HOME]
    assert any(path.is_dir() for path in homes), "the session went with the job"

    await kill(first)
    again = await restart_server(own_server)
    client = await Client.connect(again.address, data_converter=pydantic_data_converter)
    desk = DeskClient(client, settings)
    start_worker(server_env(again, home, CODEDESK_SESSION_KEEP="8s"))

    async def removed() -> object:
        _, current = await desk.status(number)
        return current.report.session_removed_at if current.report else None

    when = await eventually(removed, bool, "the session's removal")
    assert report.session_kept_until is not None and when >= report.session_kept_until
    assert not any(path.exists() for path in homes)
