"""One progress message per job thread, edited in place at most once per interval.

Narration comes often (every phase, and the agent's latest lines while it works); Discord
allows few edits. The first narration posts the message; later ones replace what to show.
An edit happens at once when the last one is older than the interval, else one edit is
scheduled for when the interval ends, showing whatever is latest then: the narration in
between is coalesced away.
After a restart the message is found again by its footer among the thread's last messages.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import discord

from surfaces.discord.common.closed_threads import ClosedThreads
from surfaces.discord.common.delivery import NO_MENTIONS, give_up, nonce, reopened
from surfaces.render.discord.embeds import is_progress, progress_embed

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Progress:
    """What the progress message shows: the job's narration, what its agent spent so far, and
    its latest lines."""

    narration: str
    lines: tuple[str, ...] = ()
    spent: str = ""


@dataclass
class _Board:
    message: int | None = None
    shown: Progress | None = None
    wanted: Progress = Progress("")
    edited_at: float = float("-inf")
    flush: asyncio.Task[None] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class ProgressBoards:
    """The progress messages of every thread this bot narrates in."""

    def __init__(
        self,
        client: discord.Client,
        *,
        interval: float,
        history_limit: int = 50,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        closed: ClosedThreads | None = None,
    ) -> None:
        self.client = client
        self.closed = closed
        self.interval = interval
        self.history_limit = history_limit
        self.clock = clock
        self.sleep = sleep
        self.boards: dict[int, _Board] = {}

    async def set(self, channel_id: int, progress: Progress) -> None:
        """Show `progress` in the thread: now, or when the interval allows."""
        board = self.boards.setdefault(channel_id, _Board())
        board.wanted = progress
        async with board.lock:
            if board.message is None:
                board.message = await self._find(channel_id)
            if board.message is None:
                await self._post(channel_id, board)
                return
            if board.shown == board.wanted:
                return
            wait = board.edited_at + self.interval - self.clock()
            if wait <= 0:
                await self._edit(channel_id, board)
            elif board.flush is None or board.flush.done():
                board.flush = asyncio.create_task(self._later(channel_id, board, wait))

    async def settle(self, channel_id: int) -> None:
        """Wait for a scheduled edit (before the report, so nothing edits after it)."""
        board = self.boards.get(channel_id)
        if board is not None and board.flush is not None:
            await asyncio.shield(board.flush)

    async def _later(self, channel_id: int, board: _Board, wait: float) -> None:
        await self.sleep(wait)
        async with board.lock:
            if board.shown == board.wanted or board.message is None:
                return
            try:
                await self._edit(channel_id, board)
            except Exception as error:  # nobody awaits this edit: log, the next one catches up
                log.warning("A coalesced progress edit in %s failed: %s", channel_id, error)

    async def _post(self, channel_id: int, board: _Board) -> None:
        wanted = board.wanted
        channel = self.client.get_partial_messageable(channel_id)
        try:
            message = await channel.send(
                embed=progress_embed(wanted.narration, wanted.lines, wanted.spent),
                nonce=nonce("progress", str(channel_id), wanted.narration),
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException as error:
            give_up(error, f"post the progress message in {channel_id}")
            return
        board.message, board.shown, board.edited_at = message.id, wanted, self.clock()

    async def _edit(self, channel_id: int, board: _Board) -> None:
        assert board.message is not None
        wanted = board.wanted
        message = self.client.get_partial_messageable(channel_id).get_partial_message(board.message)
        board.edited_at = self.clock()  # a failed edit counts too: Discord saw the request
        try:
            embed = progress_embed(wanted.narration, wanted.lines, wanted.spent)

            async def edit() -> None:
                await message.edit(embed=embed, allowed_mentions=NO_MENTIONS)

            await reopened(self.client, channel_id, edit, self.closed)
        except discord.NotFound:
            board.message = None  # deleted: the next narration posts a new one
            await self._post(channel_id, board)
            return
        except discord.HTTPException as error:
            give_up(error, f"edit the progress message in {channel_id}")
            return
        board.shown = wanted

    async def _find(self, channel_id: int) -> int | None:
        """The bot's progress message among the thread's last messages (after a restart)."""
        me = self.client.user
        if me is None:
            return None
        channel = self.client.get_partial_messageable(channel_id)
        try:
            async for message in channel.history(limit=self.history_limit):
                if message.author.id == me.id and is_progress(message.embeds):
                    return message.id
        except discord.HTTPException as error:
            give_up(error, f"read the history of {channel_id}")
        return None
