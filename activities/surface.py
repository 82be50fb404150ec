"""Surface activities: a surface's host runs these on its own task queue."""

from __future__ import annotations

from typing import Any

from temporalio import activity

from desk.surface_models import (
    CardRef,
    CloseCard,
    PostCard,
    ThreadProgress,
    ThreadReport,
    ThreadText,
)


class SurfaceActivities:
    """Wraps a surface (anything with the methods of `surfaces.surface.Surface`)."""

    def __init__(self, surface: Any) -> None:
        self.surface = surface

    @activity.defn
    async def post_card(self, card: PostCard) -> CardRef:
        ref: CardRef = await self.surface.post_card(card)
        return ref

    @activity.defn
    async def close_card(self, close: CloseCard) -> None:
        await self.surface.close_card(close)

    @activity.defn
    async def post_text(self, text: ThreadText) -> None:
        await self.surface.post_text(text)

    @activity.defn
    async def set_progress(self, progress: ThreadProgress) -> None:
        await self.surface.set_progress(progress)

    @activity.defn
    async def post_report(self, report: ThreadReport) -> None:
        await self.surface.post_report(report)

    def all(self) -> list[Any]:
        return [
            self.post_card,
            self.close_card,
            self.post_text,
            self.set_progress,
            self.post_report,
        ]
