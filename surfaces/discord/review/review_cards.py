"""Posting a job's review card in its thread, and closing the cards answered elsewhere.

A job entering review narrates `Narration.REVIEW`; the surface then posts the card: the job's
status (its round, check and rounds), its diff through the `JobDiff` workflow (the whole diff
attached as `job-N.diff`, cut to Discord's upload limit), and the cost so far from the agent's
last heartbeat. Posting is safe to run twice: a card of the same round is found again by its
buttons' custom ids. A round answered from the CLI or by a message in the thread has its card
closed when the job narrates its revision, and at the report.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Awaitable, Callable

import discord

from desk.names import job_workflow_id
from desk.payloads.conversation.review_payloads import ReviewRound, ReviewVerdict
from desk.payloads.jobs import JobPhase
from desk.usage.tally import Usage
from surfaces.clients.agent_lines import agent_lines
from surfaces.clients.desk_client import DeskClient
from surfaces.discord.common.delivery import NO_MENTIONS, give_up, nonce
from surfaces.discord.review.review_buttons import review_view
from surfaces.discord.review.review_ids import ReviewKey, parse
from surfaces.render.discord.review_card import (
    closed_text,
    diff_file,
    diff_name,
    review_card_text,
)

log = logging.getLogger(__name__)

DIFF_CHARS = 1_000_000
"""The most of a diff the card asks the `JobDiff` workflow for (a Temporal payload must stay
well under its 2 MB limit); the file says when the diff was cut."""

Find = Callable[
    [discord.PartialMessageable, Callable[[discord.Message], bool]], Awaitable[int | None]
]


class ReviewCards:
    """The review cards of the jobs this bot's threads follow."""

    def __init__(self, client: discord.Client, desk: DeskClient, find: Find) -> None:
        self.client, self.desk, self.find = client, desk, find

    async def post(self, channel_id: int, number: int) -> None:
        """Post job `number`'s card for the round waiting now (none if it waits no more)."""
        _, status = await self.desk.status(number)
        if status.phase != JobPhase.REVIEW or not status.review_rounds:
            return
        await self.close_answered(channel_id, number, status.review_rounds)
        key = ReviewKey(number, len(status.review_rounds))
        wanted = key.custom_id(ReviewVerdict.INTEGRATE)
        channel = self.client.get_partial_messageable(channel_id)
        if await self.find(channel, lambda message: wanted in _custom_ids(message)) is not None:
            return
        diff = await self.desk.diff(number, max_chars=DIFF_CHARS)
        text = review_card_text(status, diff, await self._usage(number))
        try:
            await channel.send(
                text,
                file=discord.File(io.BytesIO(diff_file(number, diff)), filename=diff_name(number)),
                view=review_view(key),
                nonce=nonce("review", str(channel_id), str(number), str(key.round)),
                allowed_mentions=NO_MENTIONS,
            )
        except discord.HTTPException as error:
            give_up(error, f"post job {number}'s review card in {channel_id}")

    async def close_answered(self, channel_id: int, number: int, rounds: list[ReviewRound]) -> None:
        """Close the open cards of job `number` whose round has its answer."""
        channel = self.client.get_partial_messageable(channel_id)
        me = self.client.user
        if me is None:
            return
        try:
            async for message in channel.history(limit=50):
                if message.author.id != me.id:
                    continue
                keys = [parsed[1] for parsed in map(parse, _custom_ids(message)) if parsed]
                if not keys or keys[0].job != number or len(rounds) < keys[0].round:
                    continue
                answered = rounds[keys[0].round - 1]
                if answered.verdict is not None:
                    await message.edit(
                        content=closed_text(message.content, answered),
                        view=None,
                        allowed_mentions=NO_MENTIONS,
                    )
        except discord.HTTPException as error:
            give_up(error, f"close job {number}'s review card in {channel_id}")

    async def _usage(self, number: int) -> Usage | None:
        """What the job's agent used so far, from its last heartbeat (None: not known)."""
        try:
            seen = await agent_lines(self.desk.client, job_workflow_id(number))
        except Exception:
            return None
        return seen.usage if seen.usage is not None and not seen.usage.empty else None


def _custom_ids(message: discord.Message) -> list[str]:
    return [
        custom_id
        for row in message.components
        for child in getattr(row, "children", [])
        if isinstance(custom_id := getattr(child, "custom_id", None), str)
    ]
