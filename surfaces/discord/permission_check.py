"""What `codedesk doctor` says of the bot's permissions in each configured guild, and whether
its application has the Message Content intent.

A job is followed in a thread: the bot posts there, edits its progress and cards, reopens the
thread when Discord archived it under a long job (a locked one needs Manage Threads) and
archives it after the report. A permission it lacks makes a job's thread fall silent, so the
doctor names it before a job does. It reads the guild's roles and the bot's own (guild-wide
permissions: a channel's overwrites may still take one away there, which /task refuses at
once, naming it). The intent is a switch in the Developer Portal, which the application's
flags tell (`GATEWAY_MESSAGE_CONTENT` for a verified bot, `..._LIMITED` for one in fewer than
100 servers): without it Discord refuses the bot's connection, since it asks for the intent
to read what people write in a job's thread.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import aiohttp
import discord
from discord.http import HTTPClient

NEEDED = {
    "view_channel": "View Channels",
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "create_public_threads": "Create Public Threads",
    "manage_threads": "Manage Threads",
    "embed_links": "Embed Links",
    "read_message_history": "Read Message History",
}
"""What the bot uses, by discord.py's flag name and Discord's own."""
MESSAGE_CONTENT_FLAGS = (1 << 18) | (1 << 19)
"""The application flags Discord sets when the Message Content intent is enabled."""


@dataclass(frozen=True)
class GuildPermissions:
    """One guild's verdict: the permissions the bot lacks there, or why it could not tell."""

    guild: str
    missing: tuple[str, ...] = ()
    problem: str = ""


async def guild_permissions(token: str, guilds: list[str]) -> list[GuildPermissions]:
    """The bot's permissions in each guild, asked of Discord with the bot's token."""
    http = HTTPClient(asyncio.get_running_loop())
    try:
        me = await http.static_login(token)
        return [await _in_guild(http, guild, int(me["id"])) for guild in guilds]
    except discord.HTTPException as error:
        return [GuildPermissions(guild, problem=_problem(error)) for guild in guilds]
    except (aiohttp.ClientError, OSError) as error:
        problem = f"Discord could not be reached ({error}): check this host's network"
        return [GuildPermissions(guild, problem=problem) for guild in guilds]
    finally:
        await http.close()


async def content_intent(token: str) -> bool | str:
    """Whether the bot's application has the Message Content intent enabled; a string: why
    Discord could not tell."""
    http = HTTPClient(asyncio.get_running_loop())
    try:
        await http.static_login(token)
        application = await http.application_info()
        return bool(int(application.get("flags") or 0) & MESSAGE_CONTENT_FLAGS)
    except discord.HTTPException as error:
        return _problem(error)
    except (aiohttp.ClientError, OSError) as error:
        return f"Discord could not be reached ({error}): check this host's network"
    finally:
        await http.close()


async def _in_guild(http: HTTPClient, guild: str, me: int) -> GuildPermissions:
    try:
        data = await http.get_guild(int(guild), with_counts=False)
        member = await http.get_member(int(guild), me)
    except discord.HTTPException as error:
        return GuildPermissions(guild, problem=_problem(error))
    mine = {guild, *member.get("roles", [])}  # the @everyone role's id is the guild's
    value = 0
    for role in data.get("roles", []):
        if role["id"] in mine:
            value |= int(role["permissions"])
    held = discord.Permissions(value)
    if held.administrator:
        return GuildPermissions(guild)
    missing = tuple(name for flag, name in NEEDED.items() if not getattr(held, flag))
    return GuildPermissions(guild, missing=missing)


def _problem(error: discord.HTTPException) -> str:
    if error.status == 401:
        return "Discord refused the token (CODEDESK_DISCORD_TOKEN): reset it and set the new one"
    if error.status in (403, 404):
        return "the bot is not in this guild: invite it, or fix CODEDESK_DISCORD_GUILD_IDS"
    return f"Discord did not answer ({error.status}): try again"
