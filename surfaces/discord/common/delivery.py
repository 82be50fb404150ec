"""Sending to Discord: no mentions ever, stable nonces, and which failures are worth a retry.

A failure Discord may get over (a 5xx, a rate limit discord.py gave up on, a dropped
connection) is raised, so the activity fails and Temporal retries it. A failure that a retry
cannot fix (403 missing permissions, 404 a deleted channel or message, 400 a refused payload)
is logged and swallowed: a chat message must never fail a job or an approval, and a retry
would only repeat it. An edit in an archived thread is neither: the thread is reopened and
the edit made again (`reopened`). Sends carry a nonce derived from what is sent (and, inside
an activity, from the activity), which Discord enforces for a few minutes, so a retried send
whose first attempt got through does not post twice.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Callable

import discord
from temporalio import activity

from surfaces.discord.common.closed_threads import ClosedThreads

log = logging.getLogger("surfaces.discord")

NO_MENTIONS = discord.AllowedMentions.none()
ARCHIVED_THREAD = 50083
"""Discord's error code for an edit in an archived thread."""
NONCE_CHARS = 25


def retryable(error: discord.HTTPException) -> bool:
    return error.status >= 500 or error.status == 429


def closed_to_me(error: discord.HTTPException) -> bool:
    """Whether Discord refused a post because the channel is closed to the bot (a locked
    archived thread, or one it may not post in)."""
    return error.code == ARCHIVED_THREAD or isinstance(error, discord.Forbidden)


def give_up(error: discord.HTTPException, what: str) -> None:
    """Re-raise a failure worth retrying; log any other and carry on."""
    if retryable(error):
        raise error
    log.warning("Could not %s (%s %s): %s", what, error.status, error.code, error.text)


async def reopened(
    client: discord.Client,
    channel_id: int,
    edit: Callable[[], Awaitable[None]],
    closed: ClosedThreads | None = None,
) -> None:
    """Run an edit; if its thread is archived, unarchive the thread and run it again.

    Edits are not activity to Discord, so a thread archives under a long job; posting a
    message reopens it by itself, an edit is refused (50083) until someone reopens it. The
    thread stays open: the job goes on, and its report archives it. A bot that may not
    reopen it (a locked thread needs Manage Threads) gets 403, given up as `give_up` says,
    and the thread is noted in `closed` for the job's report to say so.
    """
    try:
        await edit()
        return
    except discord.HTTPException as error:
        if error.code != ARCHIVED_THREAD:
            raise
    log.info("Thread %s is archived: reopening it to edit in it.", channel_id)
    try:
        await client.http.edit_channel(channel_id, archived=False)
    except discord.Forbidden:
        if closed is not None:
            closed.note(channel_id)
        raise
    await edit()


def nonce(*parts: str) -> str:
    """A nonce for one send: the same for every attempt of the same activity and part."""
    scope: tuple[str, ...] = ()
    if activity.in_activity():
        info = activity.info()
        scope = (info.workflow_id or "", info.workflow_run_id or "", info.activity_id)
    text = "\0".join((*scope, *parts))
    return hashlib.sha256(text.encode()).hexdigest()[:NONCE_CHARS]
