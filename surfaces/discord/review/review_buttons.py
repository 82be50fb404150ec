"""Integrate, Revise… and Discard on a review card: `DynamicItem`s rebuilt from their custom
id, so a press after the bot restarted answers the same job's round; Revise… opens a modal
for the feedback (a paragraph of at most 4,000 characters, Discord's limit)."""

from __future__ import annotations

import re
from typing import Any

import discord

from desk.payloads.conversation.review_payloads import ReviewVerdict
from surfaces.discord.review.review_ids import TEMPLATE, VERDICTS, ReviewKey, parse
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
            await interaction.response.send_modal(FeedbackModal(self.key))
        else:
            await answer_press(interaction, self.verdict, self.key)


class FeedbackModal(discord.ui.Modal):
    """Revise…: what the agent should change, sent to the job as a message (`say`)."""

    def __init__(self, key: ReviewKey) -> None:
        super().__init__(title=f"Revise job {key.job}", custom_id=key.modal_id(), timeout=None)
        self.key = key
        self.feedback: discord.ui.TextInput[FeedbackModal] = discord.ui.TextInput(
            label="What should the agent change?",
            style=discord.TextStyle.paragraph,
            max_length=FEEDBACK_CHARS,
        )
        self.add_item(self.feedback)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await revise_submitted(interaction, self.key, self.feedback.value)


def review_view(key: ReviewKey) -> discord.ui.View:
    """The card's controls: Integrate, Revise…, Discard, in one row."""
    view = discord.ui.View(timeout=None)
    for verdict in VERDICTS:
        view.add_item(ReviewButton(verdict, key))
    return view
