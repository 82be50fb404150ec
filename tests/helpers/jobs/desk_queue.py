"""The desk's queue as its tests read it: the order the agents marked in, the desk's state once
settled, a desk reconfigured, every report of a run, the order the desk admitted jobs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.names import job_workflow_id
from desk.payloads.jobs import DeskState, JobReport
from surfaces.clients.desk_client import DeskClient, JobRow
from tests.helpers.agent_pids import logged_marks
from tests.helpers.waiting import awaited, eventually
from workers.desk_handle import configure_desk

REPO = "acme/api"


def marks(home: Path) -> list[int]:
    """Job numbers in the order the scripted agents' `mark` steps ran, from the agent logs of
    the jobs of the desk at `home` (a sandboxed agent writes nowhere but its worktree)."""
    return logged_marks(home)


def first_marks(home: Path) -> list[int]:
    """Each job once, in the order its agent first marked (the order the agents started)."""
    seen: list[int] = []
    for number in marks(home):
        if number not in seen:
            seen.append(number)
    return seen


def most_at_once(home: Path) -> int:
    """The most agents between their start and end marks at one time (mark, ..., mark)."""
    inside: set[int] = set()
    most = 0
    for number in marks(home):
        inside.symmetric_difference_update({number})
        most = max(most, len(inside))
    return most


async def marked(home: Path, count: int) -> list[int]:
    """Wait until the agents of the desk at `home` have marked at least `count` times."""
    found: list[int] = await eventually(
        lambda: marks(home), lambda found: len(found) >= count, f"{count} marks"
    )
    return found


async def limited(desk: DeskClient, settings: DeskSettings, **update: Any) -> DeskClient:
    """Reconfigure the running desk (as a starting worker would) and return a client for it."""
    changed = settings.model_copy(update=update)
    await configure_desk(desk.client, changed)
    return DeskClient(desk.client, changed)


async def desk_state(desk: DeskClient) -> DeskState:
    state = await desk.desk_state()
    assert state is not None, "the desk did not answer its query"
    return state


async def settled(desk: DeskClient) -> DeskState:
    """The desk once nothing runs or waits (the last job_ended signal was handled)."""
    state: DeskState = await eventually(
        lambda: desk_state(desk),
        lambda state: not state.running and not state.queue,
        "an empty desk",
    )
    return state


async def rows_of(desk: DeskClient, numbers: list[int]) -> dict[int, JobRow]:
    """`jobs()` once visibility lists every job in `numbers`."""

    async def listed() -> dict[int, JobRow]:
        return {row.number: row for row in await desk.jobs()}

    rows: dict[int, JobRow] = await eventually(
        listed, lambda rows: set(numbers) <= set(rows), f"jobs {numbers} listed"
    )
    return rows


async def wait_all(desk: DeskClient, numbers: list[int]) -> list[JobReport]:
    """Each job's report in turn: the safety net is per report, so a long queue may take as
    long as it takes while it moves."""
    return [await awaited(desk.wait(number), f"job {number}'s report") for number in numbers]


async def admitted_order(client: Client, numbers: list[int]) -> list[int]:
    """Queued jobs in the order the desk let them run (when each got its `admit` signal).

    The desk sends one `admit` at a time and awaits each, so the signals' event times order
    the admissions exactly, even where two agents then start in a race.
    """
    times = {}
    for number in numbers:
        history = client.get_workflow_handle(job_workflow_id(number)).fetch_history_events()
        async for event in history:
            attributes = event.workflow_execution_signaled_event_attributes
            if event.HasField("workflow_execution_signaled_event_attributes") and (
                attributes.signal_name == "admit"
            ):
                times[number] = event.event_time.ToDatetime()
                break
    assert sorted(times) == sorted(numbers), f"jobs never admitted: {set(numbers) - set(times)}"
    return sorted(numbers, key=lambda number: times[number])
