"""Profile: where a job's time goes, event by event, across the job, the desk and the repository.

Usage: python bench/profile_job.py [--jobs N] [--json] [--out FILE]

It runs N jobs (default 5) one after another on a fresh desk, each with an agent that writes one
file and commits it (the agent of job_overhead.py), then prints the last job's timeline: every
event of its own history and the events of the `Desk` and `Repo` histories that fall between
its submission and the moment the desk has freed its slot, each at its offset from the
submission, and the gap since the event before it. It sums what the workflow tasks cost, from
scheduled to started and from started to completed. The times are the server's event times:
no clock of this process is in them but the submission's.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from common import Comparison, arguments, exit_with, isolate, make_origin, report, running_desk
from job_overhead import AGENT_COMMAND
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from desk.names import DESK_WORKFLOW_ID, job_workflow_id, repo_workflow_id
from surfaces.clients.desk_client import DeskClient

REPO = "bench/profile"


@dataclass
class Entry:
    """One event on the common timeline."""

    at: datetime
    workflow: str
    event: str
    detail: str


NAMES = {
    "activity_task_scheduled_event_attributes": ("activity_type", "name"),
    "workflow_execution_signaled_event_attributes": ("signal_name",),
    "start_child_workflow_execution_initiated_event_attributes": ("workflow_type", "name"),
    "signal_external_workflow_execution_initiated_event_attributes": ("signal_name",),
    "workflow_execution_update_accepted_event_attributes": ("accepted_request", "input", "name"),
    "marker_recorded_event_attributes": ("marker_name",),
}
"""Where each kind of event names its activity, signal, child, update or marker."""


def detail(event: HistoryEvent) -> str:
    """The name of the activity, signal, child, update or marker an event is about."""
    for field, path in NAMES.items():
        if event.HasField(field):
            value = getattr(event, field)
            for name in path:
                value = getattr(value, name)
            return str(value)
    return ""


async def events_of(client: Client, workflow_id: str) -> list[HistoryEvent]:
    """Every event of every run of a workflow id that is still in its latest run's chain."""
    handle = client.get_workflow_handle(workflow_id)
    return [event async for event in handle.fetch_history_events()]


def timeline(
    histories: dict[str, list[HistoryEvent]], start: datetime, end: datetime
) -> list[Entry]:
    entries = [
        Entry(
            at=event.event_time.ToDatetime(tzinfo=UTC),
            workflow=name,
            event=EventType.Name(event.event_type).removeprefix("EVENT_TYPE_"),
            detail=detail(event),
        )
        for name, events in histories.items()
        for event in events
    ]
    return sorted((e for e in entries if start <= e.at <= end), key=lambda e: e.at)


def task_costs(entries: list[Entry]) -> list[tuple[str, float, float]]:
    """(workflow, scheduled→started ms, started→completed ms) of each workflow task."""
    costs = []
    open_tasks: dict[str, list[datetime]] = {}
    for entry in entries:
        if entry.event == "WORKFLOW_TASK_SCHEDULED":
            open_tasks[entry.workflow] = [entry.at]
        elif entry.event == "WORKFLOW_TASK_STARTED" and entry.workflow in open_tasks:
            open_tasks[entry.workflow].append(entry.at)
        elif (
            entry.event == "WORKFLOW_TASK_COMPLETED"
            and len(open_tasks.get(entry.workflow, [])) == 2
        ):
            scheduled, started = open_tasks.pop(entry.workflow)
            costs.append(
                (
                    entry.workflow,
                    (started - scheduled).total_seconds() * 1000,
                    (entry.at - started).total_seconds() * 1000,
                )
            )
    return costs


async def slot_freed(desk: DeskClient, number: int) -> None:
    """Wait until the desk has freed the job's slot: the end of the job's bookkeeping."""
    for _ in range(600):
        state = await desk.desk_state()
        if state is not None and number not in state.running:
            return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"the desk never freed job {number}'s slot")


async def profile(root: Path, jobs: int) -> tuple[list[Entry], datetime, datetime, float]:
    async with running_desk(root / "home", AGENT_COMMAND) as (client, settings):
        desk = DeskClient(client, settings)
        await desk.add_repo(REPO, str(make_origin(root / "origin")))
        for index in range(jobs):
            submitted = datetime.now(UTC)
            began = time.perf_counter()
            number = await desk.start_job(REPO, f"profiled job {index}")
            await desk.wait(number)
            wall_ms = (time.perf_counter() - began) * 1000
            await slot_freed(desk, number)
            finished = datetime.now(UTC)
        histories = {
            "job": await events_of(client, job_workflow_id(number)),
            "desk": await events_of(client, DESK_WORKFLOW_ID),
            "repo": await events_of(client, repo_workflow_id(REPO)),
        }
    return timeline(histories, submitted, finished), submitted, finished, wall_ms


def render(entries: list[Entry], start: datetime) -> str:
    lines = ["    ms    gap  workflow  event"]
    previous = start
    for entry in entries:
        offset = (entry.at - start).total_seconds() * 1000
        gap = (entry.at - previous).total_seconds() * 1000
        previous = entry.at
        what = f"{entry.event} {entry.detail}".strip()
        lines.append(f"{offset:6.0f} {gap:6.0f}  {entry.workflow:<8}  {what}")
    return "\n".join(lines)


def main() -> int:
    args = arguments(__doc__, "jobs to run; the last one is profiled (default 5)", jobs=5)
    with tempfile.TemporaryDirectory(prefix="codedesk-bench-") as tmp:
        root = Path(tmp)
        isolate(root)
        entries, start, end, wall_ms = asyncio.run(profile(root, args.jobs))
    costs = task_costs(entries)
    waits = sum(wait for _, wait, _ in costs)
    runs = sum(run for _, _, run in costs)
    last = entries[-1].at if entries else start
    server_ms = (last - start).total_seconds() * 1000
    figures = {
        "ok": bool(entries),
        "problems": [] if entries else ["no events in the profiled job's window"],
        "jobs": args.jobs,
        "wall_ms": round(wall_ms, 1),
        "workflow_tasks": len(costs),
        "task_wait_ms": round(waits, 1),
        "task_run_ms": round(runs, 1),
        "events": [
            {
                "ms": round((entry.at - start).total_seconds() * 1000, 1),
                "workflow": entry.workflow,
                "event": entry.event,
                "detail": entry.detail,
            }
            for entry in entries
        ],
    }
    text = (
        f"{render(entries, start)}\n\n"
        f"{len(costs)} workflow tasks: {waits:.0f} ms from scheduled to started in all, "
        f"{runs:.0f} ms from started to completed in all; submission to last event "
        f"{server_ms:.0f} ms, to the client seeing the report {wall_ms:.0f} ms."
    )
    comparison = Comparison(
        "the profiled job, submission to report", wall_ms, "ms",
        "its workflow tasks waiting to start and running", waits + runs,
    )  # fmt: skip
    report("profile_job", figures, [comparison], args, text)
    return 0 if entries else 1


if __name__ == "__main__":
    exit_with(main)
