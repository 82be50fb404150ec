"""A surface step heartbeats while it waits on the surface: a slow post is not taken for a
dead host's and tried again (a dead host's is retried soon: tests/crash/desk/test_bot_restart.py).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import Worker

from activities.surface import SurfaceActivities
from desk.config.settings import DeskSettings
from desk.holds.approvals import SurfacePlace
from desk.names import outbox_workflow_id
from desk.payloads.surfaces import OutboxState, ThreadText
from surfaces.clients.desk_client import DeskClient
from tests.helpers.waiting import until
from tests.surfaces.fake_surface import FakeSurface
from workflows.delivery.outbox import Outbox


@dataclass
class HeldSurface(FakeSurface):
    """Posts text only once the test lets it (a surface slow to answer, e.g. rate limited)."""

    let_go: asyncio.Event = field(default_factory=asyncio.Event)

    async def post_text(self, text: ThreadText) -> None:
        await self.let_go.wait()
        await super().post_text(text)


async def test_a_post_the_surface_is_slow_to_make_heartbeats_and_is_made_once(
    desk: DeskClient, client: Client, settings: DeskSettings
) -> None:
    queue = f"held-surface-{uuid.uuid4().hex[:8]}"
    place = SurfacePlace(queue=queue, channel="thread-1")
    surface = HeldSurface()
    outbox = await client.start_workflow(
        Outbox.run,
        OutboxState(place=place),
        id=outbox_workflow_id(queue, place.channel),
        task_queue=settings.task_queue,
    )
    async with Worker(client, task_queue=queue, activities=SurfaceActivities(surface).all()):
        await outbox.signal(Outbox.enqueue, ThreadText(channel="thread-1", text="hello"))

        async def beat_recorded() -> bool:
            pending = (await outbox.describe()).raw_description.pending_activities
            return bool(pending) and pending[0].HasField("last_heartbeat_time")

        await until(beat_recorded, "the waiting post's heartbeat recorded by the server")
        surface.let_go.set()
        await until(lambda: surface.posts, "the post made")
    await outbox.terminate("the test is over")
    assert surface.posts == [("thread-1", "hello")]
    attempts = [
        event.activity_task_started_event_attributes.attempt
        async for event in outbox.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
    ]
    assert attempts == [1], "the post was tried again"
