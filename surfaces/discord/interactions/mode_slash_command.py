"""`/mode`: show or switch the yolo and long-running modes of the channel or thread it is used in.

Only owners reach it (the tree's `interaction_check`): the desk records the switch as theirs,
and the jobs started from this channel (or followed in this thread) follow it at once.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from desk.policy.modes import Mode, ModesView, ModeSwitch, ScopeKind
from surfaces.discord.common.access import principal
from surfaces.discord.common.delivery import NO_MENTIONS
from surfaces.discord.common.services import services_of
from surfaces.render.discord.message_text import plain, split_message

MODES = [app_commands.Choice(name=mode.value, value=mode.value) for mode in Mode]
VALUES = [app_commands.Choice(name=value, value=value) for value in ("on", "off")]


@app_commands.command(
    name="mode", description="Show or switch this channel's yolo and long-running modes."
)
@app_commands.describe(mode="The mode to switch (none: show them)", value="on or off")
@app_commands.choices(mode=MODES, value=VALUES)
async def mode_command(
    interaction: discord.Interaction[Any],
    mode: app_commands.Choice[str] | None = None,
    value: app_commands.Choice[str] | None = None,
) -> None:
    await interaction.response.defer(thinking=True)
    services = services_of(interaction.client)
    channel = str(interaction.channel_id or "")
    if mode is None or value is None:
        text = _shown(await services.modes.view(), channel)
        if mode is not None:
            text = f"Say on or off to switch {mode.value}.\n{text}"
    else:
        who = principal(interaction.user)
        # The desk decides by its host policy: the owners' ids, or an owner role of theirs.
        roles = [str(role.id) for role in getattr(interaction.user, "roles", ())]
        switched = await services.modes.switch(
            mode.value, value.value, by=who, scope=ScopeKind.CHANNEL, target=channel, roles=roles
        )
        jobs = ", ".join(f"**{number}**" for number in switched.jobs)
        told = f" Jobs told now: {jobs}." if jobs else ""
        text = f"Switched {plain(switched.switch.said())} here.{told}"
    for chunk in split_message(text):
        await interaction.followup.send(chunk, allowed_mentions=NO_MENTIONS)


def _shown(view: ModesView, channel: str) -> str:
    here = view.channels.get(channel, {})
    lines = [f"**Modes here**: {_said(here)}", f"**Desk**: {_said(view.desk)}"]
    lines.append("A job follows its own switch, else this channel's, else the desk's.")
    return "\n".join(lines)


def _said(switches: dict[Mode, ModeSwitch]) -> str:
    said = [plain(switches[mode].said()) for mode in Mode if mode in switches]
    return "; ".join(said) or "nothing switched"
