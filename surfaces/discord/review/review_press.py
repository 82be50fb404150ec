"""A press on a review card's button, and the Revise… modal's submit: the job answers.

The job is the authority on who may answer and on which answer came first (the `review`
Update's validator, `say`'s): a refusal is shown to the presser alone and changes nothing.
A press on a round already answered (here, from the CLI, or by a message in the thread) is
told who answered first. Once answered, the card is closed: its buttons removed, the outcome
and who gave it at its end.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from desk.errors import DeskError
from desk.payloads.conversation.review_payloads import ReviewRound, ReviewVerdict
from surfaces.discord.common.access import principal
from surfaces.discord.common.services import services_of
from surfaces.discord.review.review_ids import ReviewKey
from surfaces.render.discord.message_text import plain
from surfaces.render.discord.review_card import OUTCOME_WORDS, closed_text

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
TOLD = {
    ReviewVerdict.INTEGRATE: "Integrating: the report follows in this thread.",
    ReviewVerdict.DISCARD: "Discarding: the report follows in this thread.",
    ReviewVerdict.REVISE: "Sent to the agent: it resumes its session; a new card comes after "
    "its round.",
}


async def answer_press(
    interaction: discord.Interaction[Any], verdict: ReviewVerdict, key: ReviewKey
) -> None:
    """Integrate or Discard: acknowledge, answer the job, tell the presser, close the card."""
    try:
        await interaction.response.defer()
    except discord.HTTPException as error:
        log.warning("Could not acknowledge a press on a review card: %s", error)
        return
    desk = services_of(interaction.client).desk
    try:
        told = await _answered_first(interaction, key)
        if told is None:
            await desk.answer_review(
                key.job, verdict, by=principal(interaction.user), surface="discord"
            )
            told = TOLD[verdict]
            await close_pressed(interaction, key, _given(interaction, key, verdict))
    except DeskError as refused:
        told = str(refused)
    except Exception:
        log.exception("A press on job %s's review card could not be answered", key.job)
        told = "The answer could not be delivered; try again."
    await _tell(interaction, told)


async def revise_submitted(
    interaction: discord.Interaction[Any], key: ReviewKey, feedback: str
) -> None:
    """The Revise… modal's submit: the feedback is a message to the job (`say`), a revision."""
    try:
        await interaction.response.defer(ephemeral=True, thinking=True)
    except discord.HTTPException as error:
        log.warning("Could not acknowledge the feedback of a review: %s", error)
        return
    desk = services_of(interaction.client).desk
    try:
        told = await _answered_first(interaction, key)
        if told is None:
            await desk.say(key.job, feedback, by=principal(interaction.user), surface="discord")
            told = TOLD[ReviewVerdict.REVISE]
            await close_pressed(interaction, key, _given(interaction, key, ReviewVerdict.REVISE))
    except DeskError as refused:
        told = str(refused)
    except Exception:
        log.exception("The feedback to job %s's review could not be sent", key.job)
        told = "The feedback could not be delivered; try again."
    await _tell(interaction, told)


async def _answered_first(interaction: discord.Interaction[Any], key: ReviewKey) -> str | None:
    """Who answered the card's round first, in words (None: it waits for its answer). Its card
    is closed by that answer (a press's own, or the surface's at the revision or report)."""
    _, status = await services_of(interaction.client).desk.status(key.job)
    ended = status.report  # an ended job's rounds are in its report
    rounds = ended.review_rounds if ended is not None else status.review_rounds
    if len(rounds) < key.round or rounds[key.round - 1].verdict is None:
        return None
    return answered_words(key, rounds[key.round - 1])


def answered_words(key: ReviewKey, answered: ReviewRound) -> str:
    verdict = answered.verdict
    what = OUTCOME_WORDS[verdict].lower() if verdict is not None else "answered"
    return (
        f"Job {key.job}'s review (round {key.round}) was answered first by "
        f"{plain(answered.by or 'someone')}: {what}. `codedesk show {key.job}` shows where it is."
    )


def _given(
    interaction: discord.Interaction[Any], key: ReviewKey, verdict: ReviewVerdict
) -> ReviewRound:
    """The round as the presser's answer closes it (the job records it a moment later)."""
    return ReviewRound(round=key.round, verdict=verdict, by=interaction.user.name)


async def close_pressed(
    interaction: discord.Interaction[Any], key: ReviewKey, answered: ReviewRound
) -> None:
    """Close the card pressed: no buttons, the round's outcome at its end."""
    message = interaction.message
    if message is None or not message.components:
        return
    try:
        await message.edit(
            content=closed_text(message.content, answered),
            view=None,
            allowed_mentions=NO_MENTIONS,
        )
    except discord.HTTPException as error:
        log.warning("Could not close job %s's review card: %s", key.job, error)


async def _tell(interaction: discord.Interaction[Any], told: str) -> None:
    try:
        await interaction.followup.send(told, ephemeral=True, allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as error:
        log.warning("Could not tell the reviewer how their answer went: %s", error)
