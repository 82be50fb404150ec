"""The bot process: a discord.py client that is also the Temporal worker of its own surface.

One event loop runs both: the gateway connection (commands, button presses, messages in job
threads) and a worker on
the bot's task queue (`codedesk-discord`) hosting `SurfaceActivities(DiscordSurface(...))`.
The worker starts once the client has logged in (Discord's HTTP API is usable), so an
activity never runs against a client without a token; a card requested while the bot was
down waits in its outbox and is posted when the worker polls again. Commands are synced to
the configured guilds only when asked (`codedesk discord --sync`), never at every start, or
globally (`--sync-global`): Discord offers guild commands in their guild only, global ones
also in a DM with the bot (where a job is followed in the DM), after up to an hour.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from typing import Any

import discord
from temporalio.client import Client
from temporalio.worker import Worker

from activities.surface import SurfaceActivities
from desk.config.settings import DeskSettings
from desk.errors import DeskError, SettingsError
from surfaces.discord.agent_watch import LineLimits
from surfaces.discord.common.services import Services
from surfaces.discord.comparison_cards import ComparisonCards
from surfaces.discord.conversation.thread_messages import ThreadConversation
from surfaces.discord.discord_surface import DiscordSurface
from surfaces.discord.interactions.buttons import AnswerButton
from surfaces.discord.interactions.pick_buttons import PickButton
from surfaces.discord.interactions.slash_commands import CodedeskTree, install
from surfaces.discord.review.review_buttons import ReviewButton, feedback_submitted

log = logging.getLogger(__name__)

INTENTS = discord.Intents(guilds=True, guild_messages=True, dm_messages=True, message_content=True)
"""`guilds` keeps roles and threads known; slash commands and buttons need nothing more. The
messages people write in a job's thread (or DM) are passed on to its agent, which needs the
messages themselves and the privileged Message Content intent, enabled in the Developer Portal
(without it Discord refuses the bot's connection: `NO_CONTENT_INTENT`)."""
NO_TOKEN = (
    "No Discord token: set CODEDESK_DISCORD_TOKEN in the bot's environment to its token "
    "(Discord Developer Portal → your application → Bot → Reset Token)."
)
NO_CONTENT_INTENT = (
    "Discord refused the bot's Message Content intent: enable it in the Developer Portal → your "
    "application → Bot → Privileged Gateway Intents → Message Content Intent, then start the "
    "bot again. The bot reads what people write in a job's thread to pass it on to the agent."
)


class CodedeskBot(discord.Client):
    """The codedesk bot: slash commands, approval buttons, and the surface's worker."""

    def __init__(
        self,
        services: Services,
        *,
        sync: bool = False,
        sync_global: bool = False,
        host_activities: bool = True,
    ) -> None:
        super().__init__(intents=INTENTS, allowed_mentions=discord.AllowedMentions.none())
        self.codedesk = services
        self.tree = CodedeskTree(self)
        install(self.tree)
        config = services.settings
        self.surface = DiscordSurface(
            self,
            progress_interval=config.discord_progress_interval.total_seconds(),
            temporal=services.temporal,
            agent_lines=LineLimits(config.progress_agent_lines, config.progress_line_chars),
            time_zone=config.time_zone,
            threads=services.threads,
            desk=services.desk,
            comparisons=ComparisonCards(self, services.desk),
        )
        self.conversation = ThreadConversation(
            self, services.desk, services.owners, services.threads
        )
        self.sync_on_start = sync
        self.sync_global = sync_global
        self.host_activities = host_activities
        self.worker: Worker | None = None
        self.worker_task: asyncio.Task[None] | None = None
        self.worker_error: BaseException | None = None

    async def setup_hook(self) -> None:
        """After login: buttons from any earlier run, commands (if asked), the worker."""
        self.add_dynamic_items(AnswerButton, ReviewButton, PickButton)
        if self.sync_on_start:
            await self.sync_commands()
        if self.sync_global:
            synced = await self.tree.sync()
            log.info(
                "Synced %d commands globally (Discord shows them within an hour).", len(synced)
            )
        if self.host_activities:
            self.worker = Worker(
                self.codedesk.temporal,
                task_queue=self.codedesk.queue,
                activities=SurfaceActivities(self.surface).all(),
                graceful_shutdown_timeout=timedelta(seconds=5),
            )
            self.worker_task = asyncio.create_task(self.worker.run(), name="codedesk-surface")
            self.worker_task.add_done_callback(self._worker_ended)
            log.info("Hosting the Discord surface on task queue %r.", self.codedesk.queue)

    async def sync_commands(self) -> list[int]:
        """Register the slash commands in each configured guild (instant, unlike global)."""
        guilds = [int(guild) for guild in self.codedesk.settings.discord_guild_ids]
        if not guilds:
            log.warning("No guild ids (CODEDESK_DISCORD_GUILD_IDS): no commands were synced.")
        for guild_id in guilds:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("Synced %d commands to guild %s.", len(synced), guild_id)
        return guilds

    async def on_ready(self) -> None:
        """A new gateway session: read what was written in the jobs' places meanwhile."""
        self.codedesk.keep(asyncio.create_task(self.conversation.catch_up(), name="catch-up"))

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """A Revise… modal's submit, read from the interaction itself (see review_buttons.py)."""
        await feedback_submitted(interaction)

    async def on_message(self, message: discord.Message) -> None:
        """A message somewhere the bot can see: passed on if it is in a job's place."""
        await self.conversation.heard(message)

    def _worker_ended(self, task: asyncio.Task[None]) -> None:
        if task.cancelled() or task.exception() is None:
            return
        self.worker_error = task.exception()
        log.error("The surface worker stopped: %s; closing the bot.", self.worker_error)
        asyncio.get_running_loop().create_task(self.close())

    async def close(self) -> None:
        self.codedesk.close()
        self.surface.close()
        if self.worker is not None and self.worker_task is not None:
            if not self.worker_task.done():
                await self.worker.shutdown()
        await super().close()


async def serve_bot(
    temporal: Client,
    settings: DeskSettings,
    stop: asyncio.Event,
    *,
    sync: bool = False,
    sync_global: bool = False,
) -> None:
    """Run the bot until `stop` is set; a refused token or a dead worker is a DeskError."""
    token = settings.discord_token.get_secret_value()
    if not token:
        raise SettingsError(NO_TOKEN)
    bot = CodedeskBot(Services(settings, temporal), sync=sync, sync_global=sync_global)
    async with bot:
        running = asyncio.create_task(bot.start(token), name="codedesk-discord")
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        await bot.close()
        try:
            await running
        except discord.PrivilegedIntentsRequired:
            raise DeskError(NO_CONTENT_INTENT) from None
        except discord.LoginFailure:
            raise DeskError(
                "Discord refused the token in CODEDESK_DISCORD_TOKEN: reset it in the "
                "Developer Portal and set the new one."
            ) from None
        except (discord.DiscordException, OSError) as error:
            raise DeskError(f"The Discord bot could not run: {error}") from None
    if bot.worker_error is not None:
        raise DeskError(f"The Discord surface's worker stopped: {bot.worker_error}")
