"""The agent's latest lines under a job thread's narration, read from Temporal while it works.

A narration that names a job whose agent works (`ThreadProgress.agent_of`) starts a watch of
that thread: every interval the bot describes the job and shows the last lines of the agent
activity's heartbeat (scrubbed, capped, as a code block) under the narration, through the
thread's progress board, so the edits keep its pace. The job's history gets nothing from it.
A watch ends when the agent ends (its activity is no longer pending), when the job closes,
when a narration without a working agent comes, when the report is posted, or with the bot.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from temporalio.client import Client

from desk.payloads.agent_progress import shown_lines
from surfaces.clients.agent_lines import NewTexts, agent_lines
from surfaces.discord.agent_texts import AgentTexts
from surfaces.discord.progress_boards import Progress, ProgressBoards
from surfaces.render.layout.work_rounds.usage_words import usage_words

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LineLimits:
    """How much of the agent's output a progress message shows."""

    lines: int = 5
    chars: int = 160


DEFAULT_LIMITS = LineLimits()


@dataclass
class _Watch:
    job: str
    narration: str
    lines: tuple[str, ...] = ()
    spent: str = ""
    seen_agent: bool = False
    texts: NewTexts = field(default_factory=NewTexts)
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class AgentWatch:
    """The watches of every thread whose job's agent works, and their narration."""

    def __init__(
        self,
        temporal: Client | None,
        boards: ProgressBoards,
        *,
        interval: float,
        limits: LineLimits = DEFAULT_LIMITS,
        texts: AgentTexts | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.temporal = temporal
        self.boards = boards
        self.interval = interval
        self.limits = limits
        self.texts = texts
        self.sleep = sleep
        self.watches: dict[int, _Watch] = {}

    async def narrate(self, channel_id: int, narration: str, agent_of: str) -> None:
        """Show the job's narration; while its agent works, its latest lines under it."""
        watch = self.watches.get(channel_id)
        if watch is not None and watch.job != agent_of:
            self.stop(channel_id)
            watch = None
        watching = self.limits.lines > 0 or self.texts is not None
        if agent_of and self.temporal is not None and watching:
            if watch is None:
                watch = self._start(channel_id, agent_of, narration)
            watch.narration = narration
            await self.boards.set(channel_id, Progress(narration, watch.lines, watch.spent))
        else:
            await self.boards.set(channel_id, Progress(narration))

    def stop(self, channel_id: int) -> None:
        """End the thread's watch: its message shows no newer line after this.

        Its task is not cancelled in the middle of an edit: it sees at its next look that
        it was stopped, and ends.
        """
        self.watches.pop(channel_id, None)

    def close(self) -> None:
        """Stop every watch and its task (the bot closes)."""
        for watch in self.watches.values():
            if watch.task is not None:
                watch.task.cancel()
        self.watches.clear()

    def _start(self, channel_id: int, job: str, narration: str) -> _Watch:
        watch = _Watch(job=job, narration=narration)
        self.watches[channel_id] = watch
        # A context of its own: the watch outlives the surface activity that started it.
        watch.task = asyncio.create_task(
            self._follow(channel_id, watch),
            name=f"agent-lines-{channel_id}",
            context=contextvars.Context(),
        )
        return watch

    async def _follow(self, channel_id: int, watch: _Watch) -> None:
        try:
            while await self._look(channel_id, watch):
                await self.sleep(self.interval)
        finally:
            if self.watches.get(channel_id) is watch:
                del self.watches[channel_id]

    async def _look(self, channel_id: int, watch: _Watch) -> bool:
        """Show the agent's latest lines once; False when the watch is over."""
        assert self.temporal is not None
        if self.watches.get(channel_id) is not watch:
            return False
        try:
            seen = await agent_lines(self.temporal, watch.job)
        except Exception as error:  # the server is away: look again at the next interval
            log.warning("Could not read the agent of %s: %s", watch.job, error)
            return True
        if self.watches.get(channel_id) is not watch:
            return False  # stopped while the server answered: show nothing stale
        if not seen.job_running or (watch.seen_agent and not seen.agent_working):
            return False
        watch.seen_agent = watch.seen_agent or seen.agent_working
        missed, texts = watch.texts.take(seen)
        if self.texts is not None and (texts or missed):
            await self.texts.post(channel_id, watch.job, texts, missed)
        lines = tuple(shown_lines(seen.lines, self.limits.lines, self.limits.chars))
        spent = usage_words(seen.usage) if seen.usage and not seen.usage.empty else watch.spent
        if (lines and lines != watch.lines) or spent != watch.spent:
            watch.lines, watch.spent = lines or watch.lines, spent
            try:
                await self.boards.set(
                    channel_id, Progress(watch.narration, watch.lines, watch.spent)
                )
            except Exception as error:  # nobody awaits this edit: log, the next one catches up
                log.warning("Could not show the agent's lines in %s: %s", channel_id, error)
        return True
