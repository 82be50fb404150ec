"""An item handed to a thread whose outbox has ended (its report out) is shown: the outbox
started for it waits for it before it may end. Started with its report out and nothing queued,
an outbox could end before the item's signal came, and the item was lost (CI: a push's end never
reached its thread)."""

from __future__ import annotations

import asyncio
import uuid

from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from activities.surface import SurfaceActivities
from desk.holds.approvals import SurfacePlace
from desk.payloads.surfaces import ThreadText
from tests.helpers.waiting import eventually
from tests.surfaces.fake_surface import FakeSurface
from workflows.calls.outbox_calls import send_to_outbox
from workflows.delivery.outbox import Outbox

THREADS = 24
"""Threads told at once: each a race between its new outbox's first task and the item's signal.
An outbox that did not wait for its item lost some of two dozen every run here (2 of 2, 3 of 3)."""


@workflow.defn(name="TellsAfterTheReport")
class TellsAfterTheReport:
    """Tells each place one line after its report, as a Ship tells a push's end."""

    @workflow.run
    async def run(self, places: list[SurfacePlace]) -> None:
        told = [
            send_to_outbox(
                place,
                ThreadText(channel=place.channel, text=f"told {place.channel}"),
                after_report=True,
            )
            for place in places
        ]
        await asyncio.gather(*told)


async def test_every_thread_told_after_its_report_hears_it_once(client: Client) -> None:
    queue = f"told-after-{uuid.uuid4().hex[:8]}"
    places = [SurfacePlace(queue=queue, channel=f"thread-{n}") for n in range(THREADS)]
    surface = FakeSurface()
    async with Worker(
        client,
        task_queue=queue,
        workflows=[TellsAfterTheReport, Outbox],
        activities=SurfaceActivities(surface).all(),
        workflow_runner=UnsandboxedWorkflowRunner(),
    ):
        await client.execute_workflow(
            TellsAfterTheReport.run, places, id=f"tells-{queue}", task_queue=queue
        )
        expected = sorted((place.channel, f"told {place.channel}") for place in places)
        await eventually(
            lambda: sorted(surface.posts),
            lambda posts: posts == expected,
            "every thread told its line once",
        )
