"""Modes survive a SIGKILLed worker, a restarted server and the desk's continue-as-new."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from desk.config.settings import DeskSettings, load_settings
from desk.holds.approvals import Principal
from desk.names import DESK_WORKFLOW_ID
from desk.payloads.jobs import JobOutcome
from desk.policy.modes import Mode
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.mode_client import ModesClient
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import cli_env
from tests.helpers.holds.asked_holds import REPO
from tests.helpers.processes import StartWorker
from tests.helpers.waiting import awaited
from workers.desk_handle import configure_desk
from workers.devserver import DevServer
from workers.worker import build_worker

DESTRUCTIVE = {"tool": "Bash", "input": {"command": "git update-ref -d refs/heads/main"}}


async def test_modes_survive_a_killed_worker_and_a_restarted_server(
    own_server: list[DevServer],
    origin: Path,
    tmp_path: Path,
    gates: Path,
    start_worker: StartWorker,
) -> None:
    server = own_server[0]
    home = tmp_path / "home"
    env = cli_env(
        CODEDESK_HOME=str(home),
        CODEDESK_TEMPORAL_ADDRESS=server.address,
        CODEDESK_HEARTBEAT_TIMEOUT="2s",
        CODEDESK_SANDBOX_READ_PATHS=str(gates),  # the agent waits for a gate there
    )
    settings = load_settings(home=home, temporal_address=server.address, heartbeat_timeout="2s")
    alice = Principal(id=settings.owner, name="alice")
    worker = start_worker(env)
    client = await Client.connect(server.address, data_converter=pydantic_data_converter)
    desk = DeskClient(client, settings)
    await desk.add_repo(REPO, str(origin))
    await ModesClient(client, settings).switch("yolo", "on", by=alice)
    go = gates / "go"
    number = await desk.start_job(
        REPO,
        "after a crash",
        agent_command=agent(f"wait-file:{go}", "hold:" + json.dumps(DESTRUCTIVE), "say:removed"),
    )

    async def following() -> list[str]:
        return (await desk.status(number))[1].following

    for _ in range(300):
        if await following() == ["yolo"]:
            break
        await asyncio.sleep(0.1)
    assert await following() == ["yolo"]

    os.kill(worker.pid, signal.SIGKILL)
    await asyncio.to_thread(worker.wait, 10)
    server.stop()
    again = DevServer(server.home, server.port, server.ui_port, headless=True)
    own_server.append(again)
    await again.start()
    start_worker(env)
    client = await Client.connect(again.address, data_converter=pydantic_data_converter)
    desk = DeskClient(client, settings)

    view = await ModesClient(client, settings).view()
    assert view.desk[Mode.YOLO].on and view.desk[Mode.YOLO].by == alice
    assert view.jobs[number].yolo == view.desk[Mode.YOLO]
    go.touch()
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.NOTHING, report.reason
    assert [call.note for call in report.yolo_approved] == ["yolo mode, switched on by alice"]


async def test_modes_are_carried_across_the_desks_continue_as_new(
    settings: DeskSettings, client: Client
) -> None:
    config = settings.model_copy(update={"desk_history_limit": 20})
    alice = Principal(id=config.owner, name="alice")
    async with build_worker(client, config):
        await configure_desk(client, config)
        modes = ModesClient(client, config)
        first = (await client.get_workflow_handle(DESK_WORKFLOW_ID).describe()).run_id
        for value in ("on", "off", "on", "off", "on", "off", "on"):
            await modes.switch("long-running", value, by=alice)

        async def continued() -> bool:
            described = await client.get_workflow_handle(DESK_WORKFLOW_ID).describe()
            return described.run_id != first

        for _ in range(300):
            if await continued():
                break
            await asyncio.sleep(0.1)
        assert await continued()
        view = await modes.view()
    assert view.desk[Mode.LONG_RUNNING].on and view.desk[Mode.LONG_RUNNING].by == alice
    assert [switch.on for switch in view.switches] == [True, False] * 3 + [True]
