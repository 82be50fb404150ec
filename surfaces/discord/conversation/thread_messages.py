"""A person's message in a job's thread, passed on to the job's agent (the job's `say` Update).

Who wrote it comes from the gateway's event alone. The job's requester and the host's owners
(by id, or by an owner role) are heard; anyone else is ignored, and told once per job, in a
reply that mentions them, who may talk to the agent. The job's own `say` validator checks the
sender again (a job that knows nobody by that id refuses: fail closed). Messages of bots, the
bot's own, system messages, webhooks' and empty ones are ignored. A message the job took gets
a reaction (delivered, or queued); one it refused gets a cross and a reply saying why. Once the
job's report is out, a message from its requester or an owner continues it: a new job, in the
same place, whose agent resumes the finished job's session with the message (the desk client's
`say`); the place follows the new job from then on, and a reply names it.

Each message is sent with its Discord id as the Update's id, so a message read twice (the gateway
and the history at start-up) is still one message of the job. The newest message handled in each
place is kept in the thread book; at each start (every new gateway session) the bot reads each
open place's history after it, oldest first, so a message written while the bot was down is
passed on once, in order, when it comes back. A message the bot sees before it has read its
place's history waits for that reading.
"""

from __future__ import annotations

import asyncio
import logging

import discord
from temporalio.service import RPCError

from desk.errors import DeskError, MessageSenderError
from desk.payloads.message_payloads import SayAnswer
from surfaces.clients.desk_client import DeskClient
from surfaces.discord.common.access import Owners, principal
from surfaces.discord.common.thread_book import ThreadBook, ThreadJob
from surfaces.render.discord.conversation_text import (
    REFUSED,
    answer_reaction,
    continued_text,
    refusal_text,
    stranger_notice,
    unreachable_text,
)
from surfaces.render.discord.message_text import split_message

log = logging.getLogger(__name__)

CATCH_UP = 100
"""The most messages of one place read at start-up (Discord's largest page)."""
SPOKEN = (discord.MessageType.default, discord.MessageType.reply)
"""The message types a person writes; the others are Discord's own (joins, pins, threads)."""


class ThreadConversation:
    """Messages in the places of jobs, to their jobs' agents."""

    def __init__(
        self, client: discord.Client, desk: DeskClient, owners: Owners, book: ThreadBook
    ) -> None:
        self.client = client
        self.desk = desk
        self.owners = owners
        self.book = book
        self.caught_up: set[int] = set()
        self._locks: dict[int, asyncio.Lock] = {}

    async def heard(self, message: discord.Message) -> None:
        """A message the gateway brought: passed on if it is in a job's place and may be."""
        place = message.channel.id
        if self.book.job_in(place) is None:
            return
        async with self._lock(place):
            if place not in self.caught_up:
                await self._catch_up(place)
            await self._handle(place, message)

    async def catch_up(self) -> None:
        """Every open place's messages since the newest handled (the bot has just connected)."""
        self.caught_up.clear()
        for place in self.book.open_places():
            async with self._lock(place):
                if place not in self.caught_up:
                    await self._catch_up(place)

    async def _catch_up(self, place: int) -> None:
        followed = self.book.job_in(place)
        if followed is not None and followed.handled and not followed.ended:
            channel = self.client.get_partial_messageable(place)
            after = discord.Object(id=followed.handled)
            try:
                async for message in channel.history(
                    limit=CATCH_UP, after=after, oldest_first=True
                ):
                    await self._handle(place, message)
            except discord.HTTPException as error:
                log.warning(
                    "Could not read what was written in %s while the bot was away (%s %s): %s",
                    place,
                    error.status,
                    error.code,
                    error.text,
                )
        self.caught_up.add(place)

    async def _handle(self, place: int, message: discord.Message) -> None:
        followed = self.book.job_in(place)
        if followed is None or message.id <= followed.handled:
            return
        try:
            if _spoken(message, self.client.user):
                await self._pass_on(place, followed, message)
        except Exception:  # a message must never take the bot down; the log says why
            log.exception("Could not pass message %s in %s on to its job", message.id, place)
        self.book.handled(place, message.id)

    async def _pass_on(self, place: int, followed: ThreadJob, message: discord.Message) -> None:
        author, number = message.author, followed.job
        heard = self.owners.allows(author) or followed.requester == principal(author).id
        if not heard and (followed.requester or followed.ended):  # the desk is not asked
            await self._notice(place, followed, message)
            return
        try:
            answer: SayAnswer = await self.desk.say(
                number,
                message.content,
                by=principal(author),
                surface="discord",
                update_id=f"discord-message-{message.id}",
            )
        except MessageSenderError as refused:
            if heard:
                await self._refuse(message, refusal_text(refused, number))
            else:
                await self._notice(place, followed, message)
        except DeskError as refused:
            await self._refuse(message, refusal_text(refused, number))
        except RPCError as error:
            log.warning("Job %s took no message: its server did not answer (%s)", number, error)
            await self._refuse(message, unreachable_text(number))
        else:
            await _react(message, answer_reaction(answer))
            if answer.continues:  # its report was out: a new job continues it, followed here
                self.book.follow(place, answer.number, requester=principal(author).id)
                self.book.handled(place, message.id)
                await self._reply(message, continued_text(answer))

    async def _notice(self, place: int, followed: ThreadJob, message: discord.Message) -> None:
        """Tell the author, once per job, that their messages go nowhere."""
        author = message.author
        if author.id in followed.noticed:
            return
        mention = discord.AllowedMentions(everyone=False, roles=False, users=[author])
        try:
            await message.reply(
                stranger_notice(author.mention, followed.job), allowed_mentions=mention
            )
        except discord.HTTPException as error:
            log.warning(
                "Could not tell %s who may talk to job %s: %s", author.id, followed.job, error
            )
            return
        self.book.noticed(place, author.id)

    async def _refuse(self, message: discord.Message, text: str) -> None:
        await _react(message, REFUSED)
        await self._reply(message, text)

    async def _reply(self, message: discord.Message, text: str) -> None:
        try:
            for chunk in split_message(text):
                await message.reply(chunk, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as error:
            log.warning("Could not answer message %s: %s", message.id, error)

    def _lock(self, place: int) -> asyncio.Lock:
        return self._locks.setdefault(place, asyncio.Lock())


def _spoken(message: discord.Message, me: discord.ClientUser | None) -> bool:
    """Whether a person wrote this, with words: not a bot (this one or another), a webhook, a
    system message or an empty one."""
    if message.author.bot or message.webhook_id is not None or message.type not in SPOKEN:
        return False
    if me is not None and message.author.id == me.id:
        return False
    return bool(message.content.strip())


async def _react(message: discord.Message, emoji: str) -> None:
    try:
        await message.add_reaction(emoji)
    except discord.HTTPException as error:
        log.warning("Could not react to message %s with %s: %s", message.id, emoji, error)
