"""Approve and Decline on an approval's card: a `DynamicItem` rebuilt from its custom id.

The buttons hold no state of their own: after a restart, discord.py matches a pressed
button's custom id against `TEMPLATE` (in full) and rebuilds it, and the press answers the
approval the custom id names (`custom_ids.py`).
"""

from __future__ import annotations

import re
from typing import Any

import discord

from desk.holds.approvals import Decision
from surfaces.discord.interactions.custom_ids import TEMPLATE, CardKey, parse
from surfaces.discord.interactions.press import answer_press

LABELS = {Decision.APPROVE: "Approve", Decision.DECLINE: "Decline"}
STYLES = {
    Decision.APPROVE: discord.ButtonStyle.success,
    Decision.DECLINE: discord.ButtonStyle.danger,
}


class AnswerButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """Approve or Decline on an approval's card; the press is handled in `press.py`."""

    def __init__(self, decision: Decision, key: CardKey, *, disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(
                label=LABELS[decision],
                style=STYLES[decision],
                custom_id=key.custom_id(decision),
                disabled=disabled,
            )
        )
        self.decision = decision
        self.key = key

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> AnswerButton:
        parsed = parse(match.group())
        assert parsed is not None  # the template matched in full
        return cls(*parsed)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await answer_press(interaction, self.decision, self.key, closed_view=closed_view)


def card_view(approval_id: str, *, disabled: bool = False) -> discord.ui.View:
    """The card's controls: Approve and Decline, or both turned off once it has settled."""
    return key_view(CardKey.of(approval_id), disabled=disabled)


def key_view(key: CardKey, *, disabled: bool = False) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for decision in (Decision.APPROVE, Decision.DECLINE):
        view.add_item(AnswerButton(decision, key, disabled=disabled))
    return view


def closed_view(key: CardKey) -> discord.ui.View:
    return key_view(key, disabled=True)
