"""The surface contract: what a chat surface (or a fake one in tests) does for the workflows.

A surface renders structured payloads under its own limits. Its host runs
`activities.surface.SurfaceActivities(surface)` on the surface's task queue. The contract is
here, in the vocabulary, because both sides of it import it: the activities that call a surface
(which may import only `desk`) and the surfaces that implement it
(surfaces/discord/discord_surface.py, tests/surfaces/fake_surface.py), each declaring it as a
base so mypy checks its methods.
"""

from __future__ import annotations

from typing import Protocol

from desk.payloads.surfaces import (
    CardRef,
    CloseCard,
    PostCard,
    ThreadProgress,
    ThreadReport,
    ThreadText,
)


class Surface(Protocol):
    """Every method is safe to run twice (activities are retried)."""

    async def post_card(self, card: PostCard) -> CardRef:
        """Show an approval's card with its answer controls; return where it is."""
        ...

    async def close_card(self, close: CloseCard) -> None:
        """Turn the card's controls off and show the outcome (and any withdrawal note)."""
        ...

    async def post_text(self, text: ThreadText) -> None:
        """Post text to a job's thread as messages of its own."""
        ...

    async def set_progress(self, progress: ThreadProgress) -> None:
        """Edit the thread's progress message in place (creating it the first time), reopening
        the thread if it was archived meanwhile: only the report archives it."""
        ...

    async def post_report(self, report: ThreadReport) -> None:
        """Post the job's report once, then archive the thread if the surface opened it for
        the job (a place someone else opened, a DM, is left as it was)."""
        ...
