"""A job started from a chat surface is followed in its thread: progress, cards, one report."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from temporalio.worker import Worker

from activities.surface import SurfaceActivities
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, Principal, SurfacePlace
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.waiting import until
from tests.surfaces.fake_surface import FakeSurface

PUSH = json.dumps({"tool": "Bash", "input": {"command": "git push origin main"}})


async def test_a_thread_shows_progress_the_card_in_order_and_the_report_once(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    queue = f"fake-surface-{uuid.uuid4().hex[:8]}"
    surface = FakeSurface()
    place = SurfacePlace(queue=queue, channel="thread-1")
    await desk.add_repo("acme/api", str(origin))
    async with Worker(desk.client, task_queue=queue, activities=SurfaceActivities(surface).all()):
        admission = await desk.submit_job(
            "acme/api",
            "push it",
            agent_command=agent(f"hold:{PUSH}", "write:a.txt=1", "commit:after the push"),
            place=place,
        )
        await until(lambda: surface.cards, "the card in the thread")
        [card] = surface.cards.values()
        assert card.channel == "thread-1" and card.open
        assert "works on branch" in surface.progress["thread-1"]
        result, _ = await ApprovalsClient(desk.client).answer(
            card.approval_id, Decision.APPROVE, Principal(id=settings.owner)
        )
        assert result.counted
        report = await desk.wait(admission.number)
        assert report.outcome == JobOutcome.INTEGRATED, report
        await until(lambda: surface.reports and not card.open, "the report and a closed card")
    assert card.footer == "approved"
    assert surface.reports == [("thread-1", admission.number)]
    assert "thread-1" in surface.archived
    kinds = [text.split(" ")[0] for channel, text in surface.posts if channel == "thread-1"]
    assert kinds == ["card", "report"]
