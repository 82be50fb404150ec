"""An agent that holds a push, and following its approval across a crash: the open approval, every
attempt's hold joined, the job's report."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType, PendingActivityState
from temporalio.client import Client

from desk.names import job_workflow_id
from desk.payloads.jobs import JobReport
from surfaces.clients.approval_client import ApprovalsClient
from tests.helpers.agent_pids import agent_tag, job_runs
from tests.helpers.agents import agent
from tests.helpers.waiting import PATIENCE, eventually

PUSH_INPUT: dict[str, Any] = {"command": "git push origin main"}


PUSH: dict[str, Any] = {"tool": "Bash", "input": PUSH_INPUT}


def hold_agent(tmp_path: Path) -> str:
    """Hold a push, then do the work the push stood for; a mark and the test's tag (`agent_tag
    (tmp_path)`) for the test to follow it."""
    return agent(
        "mark",
        agent_tag(tmp_path),
        "hold:" + json.dumps(PUSH),
        "write:pushed.txt=yes",
        "commit:after the push",
    )


async def open_approval(client: Client) -> str:
    """The one open approval (a query: it needs a live worker)."""
    approvals = ApprovalsClient(client)
    found = await eventually(approvals.open_approvals, bool, "an approval to open")
    [ident] = [state.approval_id for state in found]
    return str(ident)


async def holds_joined(client: Client, number: int, home: Path, steady: float = 3.0) -> int:
    """Wait until every agent attempt's hold waits on the approval; return the attempts.

    A retried agent asks again. Approving before its hold has joined the open approval would
    settle it first, and the retry would then (rightly) open a new one nobody answers.
    """
    handle = client.get_workflow_handle(job_workflow_id(number))
    loop = asyncio.get_running_loop()
    deadline, since, last = loop.time() + PATIENCE, None, None
    while loop.time() < deadline:
        described = await handle.describe()
        agents = [
            item
            for item in described.raw_description.pending_activities
            if item.activity_type.name == "run_agent"
            and item.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
        ]
        attempts = agents[0].attempt if agents else 0
        marked = len(job_runs(home, number))
        events = [event async for event in handle.fetch_history_events()]
        # A hold has joined once the job accepted its `hold` Update: the hold channel asks by
        # Update, and the job starts or joins the approval in the task that accepts it.
        accepted = [
            event.workflow_execution_update_accepted_event_attributes.accepted_request.input
            for event in events
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
        ]
        joined = sum(1 for update in accepted if update.name == "hold")
        state = (attempts, marked, joined)
        if attempts and attempts == marked == joined:
            if state != last:
                since, last = loop.time(), state
            elif since is not None and loop.time() - since >= steady:
                return attempts
        else:
            since, last = None, None
        await asyncio.sleep(0.3)
    raise AssertionError(f"the agent's holds never settled: {last}")


async def report_of(client: Client, number: int, tmp_path: Path) -> JobReport:
    """The job's report; on a timeout, what the job's history and agent log say, to see why."""
    handle = client.get_workflow_handle(job_workflow_id(number), result_type=JobReport)
    try:
        return await asyncio.wait_for(handle.result(), timeout=PATIENCE)
    except TimeoutError:
        kinds = [
            EventType.Name(event.event_type).removeprefix("EVENT_TYPE_")
            async for event in handle.fetch_history_events()
        ]
        logs = [path.read_text() for path in tmp_path.glob("home/jobs/*/agent.log")]
        raise AssertionError(
            f"job {number} did not end: history {kinds}, agent log {logs}"
        ) from None
