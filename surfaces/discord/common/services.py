"""What the bot's commands and buttons reach: the desk, approvals, shipping and the owners."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from functools import cached_property

import discord
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.names import DISCORD_TASK_QUEUE
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.mode_client import ModesClient
from surfaces.clients.ship_client import ShippingClient
from surfaces.discord.common.access import Owners
from surfaces.discord.common.thread_book import BOOK_FILE, ThreadBook

log = logging.getLogger(__name__)

SHELF_MAX_AGE = 30.0
"""Seconds a shelf listing is reused for autocomplete (Discord wants an answer in 3 s)."""


@dataclass
class Services:
    settings: DeskSettings
    temporal: Client
    queue: str = DISCORD_TASK_QUEUE
    """The task queue this bot's surface activities poll: the `place.queue` of its threads."""
    _shelf: tuple[float, list[str]] = field(default=(float("-inf"), []), init=False, repr=False)
    _refresh: asyncio.Task[list[str]] | None = field(default=None, init=False, repr=False)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set, init=False, repr=False)

    @cached_property
    def owners(self) -> Owners:
        return Owners.from_settings(self.settings)

    @cached_property
    def threads(self) -> ThreadBook:
        """Which job each place follows, kept on disk under the bot's home."""
        return ThreadBook(self.settings.home / BOOK_FILE)

    @cached_property
    def desk(self) -> DeskClient:
        return DeskClient(self.temporal, self.settings)

    @cached_property
    def approvals(self) -> ApprovalsClient:
        return ApprovalsClient(self.temporal)

    @cached_property
    def modes(self) -> ModesClient:
        return ModesClient(self.temporal, self.settings)

    @cached_property
    def shipping(self) -> ShippingClient:
        return ShippingClient(self.temporal, self.settings)

    def keep(self, task: asyncio.Task[None]) -> None:
        """Hold a background task (a courtesy message) until it ends or the bot closes."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def close(self) -> None:
        for task in (*self._tasks, *([self._refresh] if self._refresh else [])):
            task.cancel()

    async def shelf(self, *, fresh: bool = False) -> list[str]:
        """The repositories on the shelf; a listing younger than SHELF_MAX_AGE is reused."""
        at, names = self._shelf
        if fresh or time.monotonic() - at > SHELF_MAX_AGE:
            names = sorted(clone.repo for clone in await self.desk.list_repos())
            self._shelf = (time.monotonic(), names)
        return names

    async def shelf_quickly(self, within: float = 2.0) -> list[str]:
        """The shelf for autocomplete: the last listing when a fresh one takes too long.

        A slow listing goes on in the background, so a later keystroke gets its result.
        """
        stale = time.monotonic() - self._shelf[0] > SHELF_MAX_AGE
        if stale and (self._refresh is None or self._refresh.done()):
            self._refresh = asyncio.create_task(self.shelf(fresh=True))
            self._refresh.add_done_callback(_log_failure)
        if self._refresh is not None and not self._refresh.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._refresh), within)
            except Exception:  # slow or failed: answer with what is known (logged once)
                pass
        return self._shelf[1]


def _log_failure(task: asyncio.Task[list[str]]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("Listing the shelf for autocomplete failed: %s", task.exception())


def services_of(client: discord.Client) -> Services:
    """The services of the bot that received an interaction."""
    services = getattr(client, "codedesk", None)
    if not isinstance(services, Services):
        raise RuntimeError("This client is not a codedesk bot: it has no services.")
    return services
