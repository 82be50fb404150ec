"""The comparison card's buttons (issue 48): **Pick a**, **Pick b**, ... and **Discard all**.

Each button's custom id carries the job and the attempt (`codedesk:pick:<job>:<label>`, or
`codedesk:discard-all:<job>`), so a press after a restart picks the same: discord.py matches it
against `TEMPLATE` (in full) and rebuilds the button. A press is the presser's pick, sent to the
job as `discord:<user id>`; the job is the authority on who may pick and when (its `pick`
Update refuses anyone but whoever started it and the host's owners, and every pick after the
first). A refusal is told to the presser alone and changes nothing; a pick that is taken, or
one refused because another came first, closes the card: its buttons off and how the pick went
as its footer.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import discord

from desk.errors import DeskError
from desk.names import ATTEMPT_LABELS
from desk.payloads.conversation.attempt_payloads import AttemptRow, AttemptState
from surfaces.clients.desk_client import DeskClient
from surfaces.discord.common.access import principal
from surfaces.discord.common.delivery import NO_MENTIONS
from surfaces.discord.common.services import services_of
from surfaces.render.discord.comparison_card import (
    PICK_BUTTONS,
    closed_comparison,
    pick_outcome,
)
from surfaces.render.discord.message_text import plain

log = logging.getLogger(__name__)

PREFIX = "codedesk"
TEMPLATE = re.compile(
    rf"{PREFIX}:(?:pick:(?P<job>[1-9][0-9]{{0,17}}):(?P<label>[{ATTEMPT_LABELS}])"
    rf"|discard-all:(?P<all>[1-9][0-9]{{0,17}}))"
)


def pick_id(number: int, label: str) -> str:
    """The custom id of attempt `label`'s button (an empty label: Discard all)."""
    return f"{PREFIX}:pick:{number}:{label}" if label else f"{PREFIX}:discard-all:{number}"


class PickButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """**Pick b** (an attempt's label) or **Discard all** (no label) on a comparison card."""

    def __init__(self, number: int, label: str, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Pick {label}" if label else "Discard all",
                style=discord.ButtonStyle.primary if label else discord.ButtonStyle.danger,
                custom_id=pick_id(number, label),
                disabled=disabled,
            )
        )
        self.number = number
        self.label = label

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> PickButton:
        if match["all"]:
            return cls(int(match["all"]), "")
        return cls(int(match["job"]), match["label"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await press_pick(interaction, self.number, self.label)


def comparison_view(
    number: int, rows: list[AttemptRow], *, closed: bool = False
) -> discord.ui.View:
    """A button per attempt, enabled when its work waits for the pick and no blocking check
    failed, and Discard all; every one off once the card is closed."""
    view = discord.ui.View(timeout=None)
    for row in rows[:PICK_BUTTONS]:
        ready = row.state == AttemptState.READY and not row.check_blocks
        view.add_item(PickButton(number, row.label, disabled=closed or not ready))
    view.add_item(PickButton(number, "", disabled=closed))
    return view


async def press_pick(interaction: discord.Interaction[Any], number: int, label: str) -> None:
    """Acknowledge, send the pick, tell the presser, and close the card once the pick is made."""
    try:
        await interaction.response.defer()
    except discord.HTTPException as error:
        log.warning("Could not acknowledge a press on job %s's comparison: %s", number, error)
        return
    services = services_of(interaction.client)
    who = principal(interaction.user)
    outcome: tuple[str, bool] | None = None
    try:
        picked = await services.desk.pick(number, label, by=who, surface="discord")
        outcome = pick_outcome(picked.label, picked.attempt, who.name or who.id), bool(label)
        told = (
            f"You picked attempt {picked.label} (job {picked.attempt}): it integrates now."
            if picked.label
            else "You discarded every attempt: nothing lands."
        )
    except DeskError as refused:
        told = plain(str(refused))
        outcome = await _made_before(services.desk, number)
    except Exception:
        log.exception("A press on job %s's comparison could not be sent", number)
        told = "The pick could not be delivered; try again."
    if outcome is not None:
        await _close(interaction, number, *outcome)
    try:
        await interaction.followup.send(told, ephemeral=True, allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as error:
        log.warning("Could not tell the presser how their pick went: %s", error)


async def _made_before(desk: DeskClient, number: int) -> tuple[str, bool] | None:
    """How the job's pick went, and whether an attempt was picked, when someone made it
    before this press (None when none was made yet, or it cannot be told)."""
    try:
        _, status = await desk.status(number)
    except Exception as error:  # the refusal is told either way; the card stays as it is
        log.info("Could not read job %s after a refused pick: %s", number, error)
        return None
    attempts = status.attempts or (status.report.attempts if status.report else None)
    if attempts is None or not attempts.picked_by:
        return None
    row = attempts.picked_row()
    words = pick_outcome(attempts.picked, row.number if row else 0, attempts.picked_by)
    return words, bool(attempts.picked)


async def _close(
    interaction: discord.Interaction[Any], number: int, outcome: str, picked: bool
) -> None:
    """Turn the pressed card's buttons off and say how the pick went."""
    message = interaction.message
    if message is None:
        return
    embeds = list(message.embeds)
    if embeds:
        embeds[0] = closed_comparison(embeds[0], outcome, picked=picked)
    view = discord.ui.View(timeout=None)
    for row in message.components:
        for child in getattr(row, "children", []):
            found = TEMPLATE.fullmatch(getattr(child, "custom_id", None) or "")
            if found is not None:
                view.add_item(PickButton(number, found["label"] or "", disabled=True))
    try:
        await interaction.edit_original_response(
            embeds=embeds, view=view, allowed_mentions=NO_MENTIONS
        )
    except discord.HTTPException as error:
        log.warning("Could not close job %s's comparison after a press: %s", number, error)
