"""Integrate, Revise… and Discard on a review card: `DynamicItem`s rebuilt from their custom
id, so a press after the bot restarted answers the same job's round; Revise… opens a modal
for the feedback (a paragraph of at most 4,000 characters, Discord's limit).

The modal is not kept in the bot's memory: its submit is read from the interaction itself
(`feedback_submitted`, called by the bot for every modal submit), whose custom id names the
job and round, so a modal opened before the bot restarted is still taken after it.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from desk.payloads.conversation.review_payloads import ReviewVerdict
from surfaces.discord.review.review_ids import TEMPLATE, VERDICTS, ReviewKey, parse, parse_modal
from surfaces.discord.review.review_press import answer_press, revise_submitted

LABELS = {
    ReviewVerdict.INTEGRATE: "Integrate",
    ReviewVerdict.REVISE: "Revise…",
    ReviewVerdict.DISCARD: "Discard",
}
STYLES = {
    ReviewVerdict.INTEGRATE: discord.ButtonStyle.success,
    ReviewVerdict.REVISE: discord.ButtonStyle.primary,
    ReviewVerdict.DISCARD: discord.ButtonStyle.danger,
}
FEEDBACK_CHARS = 4000
"""Discord's limit on a modal's text input."""


class ReviewButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """One of a review card's three buttons."""

    def __init__(self, verdict: ReviewVerdict, key: ReviewKey) -> None:
        super().__init__(
            discord.ui.Button(
                label=LABELS[verdict], style=STYLES[verdict], custom_id=key.custom_id(verdict)
            )
        )
        self.verdict = verdict
        self.key = key

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> ReviewButton:
        parsed = parse(match.group())
        assert parsed is not None  # the template matched in full
        return cls(*parsed)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if self.verdict == ReviewVerdict.REVISE:
            modal = FeedbackModal(self.key)
            modal.stop()  # not kept in memory: `feedback_submitted` takes its submit
            await interaction.response.send_modal(modal)
        else:
            await answer_press(interaction, self.verdict, self.key)


class FeedbackModal(discord.ui.Modal):
    """Revise…: what the agent should change, sent to the job as a message (`say`)."""

    INPUT_ID = "feedback"

    def __init__(self, key: ReviewKey) -> None:
        super().__init__(title=f"Revise job {key.job}", custom_id=key.modal_id(), timeout=None)
        self.key = key
        self.feedback: discord.ui.TextInput[FeedbackModal] = discord.ui.TextInput(
            label="What should the agent change?",
            style=discord.TextStyle.paragraph,
            max_length=FEEDBACK_CHARS,
            custom_id=self.INPUT_ID,
        )
        self.add_item(self.feedback)


async def feedback_submitted(interaction: discord.Interaction[Any]) -> bool:
    """Take a Revise… modal's submit (False: the interaction is none)."""
    data: Any = interaction.data or {}
    if interaction.type != discord.InteractionType.modal_submit:
        return False
    key = parse_modal(str(data.get("custom_id", "")))
    if key is None:
        return False
    await revise_submitted(interaction, key, _value(data.get("components") or []))
    return True


def _value(components: list[Any]) -> str:
    """The feedback input's value among a modal submit's components (rows or labels)."""
    for component in components:
        inner = component.get("components") or [component.get("component") or {}]
        for child in inner:
            if child.get("custom_id") == FeedbackModal.INPUT_ID:
                return str(child.get("value") or "")
    return ""


def review_view(key: ReviewKey) -> discord.ui.View:
    """The card's controls: Integrate, Revise…, Discard, in one row."""
    view = discord.ui.View(timeout=None)
    for verdict in VERDICTS:
        view.add_item(ReviewButton(verdict, key))
    return view
