"""The comparison card of a job of several attempts (issue 48), posted in the job's thread when
its comparison opens (the `COMPARING` narration reaches the thread).

The card is built from the job's own status, read when the narration arrives: the attempts'
rows as they are then, and a button per attempt (`interactions/pick_buttons.py`). Posting is
safe to run twice, like every surface activity: a card of the job already among the thread's
last messages (found by its Discard all button's custom id) is brought up to date instead of
posted again, so a comparison that opens a second time (an attempt revised) shows one card.
When the job's report comes, a card still open (the pick was made elsewhere: the CLI, the first
passing check) is closed the way a press closes it, saying how the pick went.
"""

from __future__ import annotations

import logging

import discord
from temporalio.service import RPCError

from desk.errors import DeskError
from desk.payloads.conversation.attempt_payloads import Attempts
from desk.payloads.jobs import JobPhase
from surfaces.clients.desk_client import DeskClient
from surfaces.discord.common.delivery import NO_MENTIONS, give_up, nonce
from surfaces.discord.interactions.pick_buttons import comparison_view, pick_id
from surfaces.render.discord.comparison_card import (
    closed_comparison,
    comparison_embed,
    pick_outcome,
)

log = logging.getLogger(__name__)


class ComparisonCards:
    """Posts (or brings up to date) the comparison card of a job in its place."""

    def __init__(self, client: discord.Client, desk: DeskClient, *, history_limit: int = 50):
        self.client = client
        self.desk = desk
        self.history_limit = history_limit

    async def show(self, channel_id: int, number: int) -> None:
        """The card of job `number` in `channel_id`, as the job's status says now; nothing when
        its comparison is not open (any more) or the job cannot be read."""
        try:
            _, status = await self.desk.status(number)
        except (DeskError, RPCError) as error:
            log.warning("Job %s's comparison card was not shown: %s", number, error)
            return
        attempts = status.attempts
        if attempts is None or status.phase != JobPhase.REVIEW or attempts.picked_by:
            return
        embed = comparison_embed(number, attempts)
        view = comparison_view(number, attempts.rows)
        channel = self.client.get_partial_messageable(channel_id)
        try:
            shown = await self._shown(channel, pick_id(number, ""))
            if shown is not None:
                await shown.edit(embed=embed, view=view, allowed_mentions=NO_MENTIONS)
                return
            await channel.send(
                embed=embed,
                view=view,
                nonce=nonce("comparison", str(channel_id), str(number)),
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException as error:
            give_up(error, f"show job {number}'s comparison card in {channel_id}")

    async def close(self, channel_id: int, number: int, attempts: Attempts) -> None:
        """Close job `number`'s card, if it is shown and still open: its buttons off, how the
        pick went as its footer."""
        channel = self.client.get_partial_messageable(channel_id)
        try:
            shown = await self._shown(channel, pick_id(number, ""))
            if shown is None or not shown.embeds or not _open(shown):
                return
            row = attempts.picked_row()
            if attempts.picked_by:
                words = pick_outcome(attempts.picked, row.number if row else 0, attempts.picked_by)
            else:
                words = f"Job {number} ended with no pick: its report follows."
            embed = closed_comparison(shown.embeds[0], words, picked=bool(attempts.picked))
            view = comparison_view(number, attempts.rows, closed=True)
            await shown.edit(embed=embed, view=view, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as error:
            give_up(error, f"close job {number}'s comparison card in {channel_id}")

    async def _shown(
        self, channel: discord.PartialMessageable, custom_id: str
    ) -> discord.Message | None:
        """The bot's card among the channel's last messages, by one of its buttons."""
        me = self.client.user
        if me is None:
            return None
        async for message in channel.history(limit=self.history_limit):
            if message.author.id == me.id and custom_id in _custom_ids(message):
                return message
        return None


def _open(message: discord.Message) -> bool:
    """Whether a card still has a button one may press."""
    return any(
        not getattr(child, "disabled", True)
        for row in message.components
        for child in getattr(row, "children", [])
    )


def _custom_ids(message: discord.Message) -> set[str]:
    return {
        custom_id
        for row in message.components
        for child in getattr(row, "children", [])
        if isinstance(custom_id := getattr(child, "custom_id", None), str)
    }
