"""The agent's own texts worth reading, posted in its job's thread as messages of their own.

The agent watch (`surfaces.discord.agent_watch`) hands over each text its heartbeat carries
that the thread has not shown (`NewTexts`): already scrubbed by the worker, here neutralised
(`sanitize`: no mention, no link, no hidden text) and split under Discord's message limit.
discord.py keeps to the rate limits (it waits out a 429 itself). A bot that restarts finds
the texts it posted among the thread's last messages and does not post them again. Posting
in an archived thread reopens it (Discord does, for a message); a failure is logged and the
next text is tried: a chat message never stops a job.
"""

from __future__ import annotations

import logging

import discord

from surfaces.discord.common.delivery import NO_MENTIONS, nonce
from surfaces.render.discord.message_text import sanitize, split_message

log = logging.getLogger(__name__)


class AgentTexts:
    """Posts agents' texts in their threads, each once."""

    def __init__(self, client: discord.Client, *, history_limit: int = 50) -> None:
        self.client = client
        self.history_limit = history_limit
        self.shown: dict[int, set[str]] = {}
        """Per thread: the first message of every text this bot posted there."""

    async def post(self, channel_id: int, job: str, texts: list[str], missed: int) -> None:
        """Post `texts` in the thread, after a note of the `missed` ones no heartbeat held."""
        shown = await self._shown(channel_id)
        channel = self.client.get_partial_messageable(channel_id)
        said = [f"*… {missed} more texts of the agent are in its log.*"] if missed else []
        for text in said + texts:
            chunks = split_message(sanitize(text))
            if not chunks or chunks[0] in shown:
                continue
            try:
                for index, chunk in enumerate(chunks):
                    await channel.send(
                        chunk,
                        nonce=nonce("agent-text", str(channel_id), job, text, str(index)),
                        allowed_mentions=NO_MENTIONS,
                    )
            except discord.HTTPException as error:  # nobody awaits it: the next text is tried
                log.warning(
                    "Could not post the agent's text in %s (%s %s): %s",
                    channel_id,
                    error.status,
                    error.code,
                    error.text,
                )
                continue
            shown.add(chunks[0])

    def forget(self, channel_id: int) -> None:
        """The thread's job is over: its texts need not be remembered."""
        self.shown.pop(channel_id, None)

    async def _shown(self, channel_id: int) -> set[str]:
        shown = self.shown.get(channel_id)
        if shown is not None:
            return shown
        shown = self.shown[channel_id] = set()
        me = self.client.user
        if me is None:
            return shown
        try:
            async for message in self.client.get_partial_messageable(channel_id).history(
                limit=self.history_limit
            ):
                if message.author.id == me.id and message.content:
                    shown.add(message.content)
        except discord.HTTPException as error:
            log.warning("Could not read the history of %s: %s", channel_id, error)
        return shown
