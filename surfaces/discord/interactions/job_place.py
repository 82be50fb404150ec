"""Where a job asked for in Discord is followed: a new thread, the place it was asked, or nowhere.

A job is followed where it was asked. In a text or announcement channel it gets a thread of
its own under the command's answer (or, where the bot may post but not open threads, the
channel itself); in a thread or a forum post, that thread; in the bot's DM, the DM. Where the
bot cannot post at all (a conversation it is not part of, a channel it may not write in, a
locked thread) `job_place` raises ChatPlaceError, so the command refuses before a job starts
instead of running one nobody hears of. The bot's permissions come with the interaction
(`app_permissions`), so the decision costs no request.
"""

from __future__ import annotations

import enum
from typing import Any

import discord

from desk.errors import ChatPlaceError

THREADED = (discord.ChannelType.text, discord.ChannelType.news)
THREADS = (
    discord.ChannelType.public_thread,
    discord.ChannelType.private_thread,
    discord.ChannelType.news_thread,
)
VOICE_CHATS = (discord.ChannelType.voice, discord.ChannelType.stage_voice)


class Follow(enum.Enum):
    """How a job is followed: in a thread opened for it, or where it was asked."""

    NEW_THREAD = "new thread"
    HERE = "here"


def job_place(interaction: discord.Interaction[Any]) -> Follow:
    """Where the job of this command is followed; ChatPlaceError where nowhere."""
    channel = interaction.channel
    kind = getattr(channel, "type", None)
    allowed = interaction.app_permissions
    if kind == discord.ChannelType.private:
        if interaction.context.dm_channel:
            return Follow.HERE
        raise ChatPlaceError(
            "codedesk cannot post in a conversation it is not part of: run /task in a "
            "server channel, a thread or your direct messages with the bot."
        )
    if kind in THREADS:
        if not allowed.send_messages_in_threads:
            raise ChatPlaceError(_missing("Send Messages in Threads"))
        if getattr(channel, "locked", False) and not allowed.manage_threads:
            raise ChatPlaceError(
                "This thread is locked and codedesk may not reopen it: run /task in an open "
                "thread or a channel, or give the bot Manage Threads."
            )
        return Follow.HERE
    if kind in THREADED or kind in VOICE_CHATS:
        if not allowed.send_messages:
            raise ChatPlaceError(_missing("Send Messages"))
        threads = allowed.create_public_threads and allowed.send_messages_in_threads
        return Follow.NEW_THREAD if kind in THREADED and threads else Follow.HERE
    raise ChatPlaceError(
        "codedesk cannot follow a job from here: run /task in a text channel, a thread, a "
        "forum post or your direct messages with the bot."
    )


def _missing(permission: str) -> str:
    return (
        f"codedesk may not post here (it lacks {permission}): give the bot that permission "
        "in this channel, or run /task where it may post."
    )
