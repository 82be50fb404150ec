"""Surface activities: a surface's host runs these on its own task queue."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from temporalio import activity

from desk.payloads.surface_contract import Surface
from desk.payloads.surfaces import (
    CardRef,
    CloseCard,
    PostCard,
    ThreadProgress,
    ThreadReport,
    ThreadText,
)

R = TypeVar("R")

DEFAULT_BEAT_SECONDS = 1.0
"""How often to heartbeat when the workflow set no heartbeat timeout (a step scheduled before
surface steps had one)."""


class SurfaceActivities:
    """Wraps a surface (`desk.payloads.surface_contract.Surface`).

    Every step heartbeats while it waits on the surface, so the step of a host that died is
    retried by the next host once its heartbeat timeout passes, not its whole step timeout.
    """

    def __init__(self, surface: Surface) -> None:
        self.surface = surface

    @activity.defn
    async def post_card(self, card: PostCard) -> CardRef:
        ref: CardRef = await beating(self.surface.post_card(card))
        return ref

    @activity.defn
    async def close_card(self, close: CloseCard) -> None:
        await beating(self.surface.close_card(close))

    @activity.defn
    async def post_text(self, text: ThreadText) -> None:
        await beating(self.surface.post_text(text))

    @activity.defn
    async def set_progress(self, progress: ThreadProgress) -> None:
        await beating(self.surface.set_progress(progress))

    @activity.defn
    async def post_report(self, report: ThreadReport) -> None:
        await beating(self.surface.post_report(report))

    def all(self) -> list[Any]:
        return [
            self.post_card,
            self.close_card,
            self.post_text,
            self.set_progress,
            self.post_report,
        ]


async def beating(step: Awaitable[R], *details: Any) -> R:
    """Await `step`, heartbeating meanwhile (with `details`, so that an activity's own record of
    its earlier attempts outlives the wait); a cancelled activity cancels the step."""
    timeout = activity.info().heartbeat_timeout
    every = timeout.total_seconds() / 3 if timeout else DEFAULT_BEAT_SECONDS
    work = asyncio.ensure_future(step)
    try:
        while True:
            done, _ = await asyncio.wait({work}, timeout=every)
            if done:
                return work.result()
            activity.heartbeat(*details)
    finally:
        work.cancel()
