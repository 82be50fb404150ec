"""A press on a card's button: answer the approval by its Update and tell the presser.

The approval is the authority on who may answer (its request's approvers or owners): every
press goes to it as `discord:<user id>`, so a stranger's press is recorded there as ignored
and changes nothing, and the presser is told "you may not approve this" (ephemerally). The
press names its card (`discord:<message id>`), which the approval keeps in its outcome: which
card the answer came from.
The press is acknowledged first (a deferred update, inside Discord's 3 seconds), then the
answer follows as an ephemeral message; when the approval has settled, whoever settled it,
the pressed card is closed on the spot: controls off, the outcome as its footer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import discord
from temporalio.client import WorkflowExecutionStatus, WorkflowQueryFailedError
from temporalio.service import RPCError, RPCStatusCode

from desk.holds.approvals import ApprovalOutcome, Decision
from surfaces.discord.common.access import principal
from surfaces.discord.common.services import Services, services_of
from surfaces.discord.interactions.custom_ids import CardKey, resolve
from surfaces.render.discord.embeds import closed_copy, inactive_copy
from surfaces.render.discord.message_text import plain
from workflows.shipping.approval import Approval

log = logging.getLogger(__name__)

NO_MENTIONS = discord.AllowedMentions.none()
NO_LONGER_ACTIVE = "This card is no longer active"
MAY_NOT = "You may not approve this: your answer was not counted."
STATE_TIMEOUT = timedelta(seconds=3)


@dataclass
class Settled:
    """How a settled approval ended (None: it is gone, and how it ended is not known)."""

    outcome: ApprovalOutcome | None


OPEN = "open"
UNKNOWN = "unknown"


async def answer_press(
    interaction: discord.Interaction[Any],
    decision: Decision,
    key: CardKey,
    *,
    closed_view: Callable[[CardKey], discord.ui.View],
) -> None:
    """Acknowledge, answer, tell the presser, and close the card if the approval settled."""
    try:
        await interaction.response.defer()
    except discord.HTTPException as error:
        log.warning("Could not acknowledge a press on a card: %s", error)
        return
    try:
        services = services_of(interaction.client)
        told, settled, ident = await _answer(services, interaction, decision, key)
    except Exception:
        log.exception("A press on a card could not be answered")
        told, settled, ident = "The answer could not be delivered; try again.", None, ""
    if settled is not None:
        await _close(interaction, ident, settled, closed_view(key))
    try:
        await interaction.followup.send(told, ephemeral=True, allowed_mentions=NO_MENTIONS)
    except discord.HTTPException as error:
        log.warning("Could not tell the presser how their answer went: %s", error)


async def _answer(
    services: Services,
    interaction: discord.Interaction[Any],
    decision: Decision,
    key: CardKey,
) -> tuple[str, Settled | None, str]:
    ident = await resolve(key, services.temporal)
    if ident is None:
        return f"{NO_LONGER_ACTIVE}.", Settled(None), ""
    who = principal(interaction.user)
    result, by_signal = await services.approvals.answer(ident, decision, who, pressed(interaction))
    if by_signal:
        return (
            "Your answer was sent; it counts when the desk's worker is back, unless the "
            "approval settles first.",
            None,
            ident,
        )
    if result.counted:
        word = "Approved" if decision == Decision.APPROVE else "Declined"
        return f"{word}.", Settled(result.outcome), ident
    if result.outcome is not None:
        return _stale(result.outcome), Settled(result.outcome), ident
    state = await _state(services, ident)
    if isinstance(state, Settled):
        return _stale(state.outcome), state, ident
    if state == OPEN:
        return MAY_NOT, None, ident
    return f"The approval could not be reached: {plain(result.reason)}", None, ident


def pressed(interaction: discord.Interaction[Any]) -> str:
    """The card a press was made on, as the approval records it: `discord:<message id>`."""
    message = interaction.message
    return f"discord:{message.id}" if message is not None else f"discord:?{interaction.id}"


def _stale(outcome: ApprovalOutcome | None) -> str:
    if outcome is None:
        return f"{NO_LONGER_ACTIVE}."
    return f"{NO_LONGER_ACTIVE}: it was {outcome.kind.value}" + (
        f" by {plain(outcome.by.name or outcome.by.id)}." if outcome.by else "."
    )


async def _state(services: Services, ident: str) -> Settled | str:
    """Settled (with its outcome when known), OPEN, or UNKNOWN when it cannot be told."""
    handle = services.temporal.get_workflow_handle_for(Approval.run, ident)
    try:
        described = await handle.describe(rpc_timeout=STATE_TIMEOUT)
        if described.status == WorkflowExecutionStatus.COMPLETED:
            return Settled(await handle.result(rpc_timeout=STATE_TIMEOUT))
        if described.status != WorkflowExecutionStatus.RUNNING:
            return Settled(None)
        current = await handle.query(Approval.current, rpc_timeout=STATE_TIMEOUT)
    except RPCError as error:
        return Settled(None) if error.status == RPCStatusCode.NOT_FOUND else UNKNOWN
    except WorkflowQueryFailedError:
        return UNKNOWN
    return OPEN if current.outcome is None else Settled(current.outcome)


async def _close(
    interaction: discord.Interaction[Any], ident: str, settled: Settled, view: discord.ui.View
) -> None:
    """Close the pressed card (the workflow's own close edits it the same way, later)."""
    message = interaction.message
    if message is None:
        return
    embeds = list(message.embeds)
    if embeds:
        first, outcome = embeds[0], settled.outcome
        if outcome is None:
            embeds[0] = inactive_copy(first, ident)
        else:
            embeds[0] = closed_copy(first, ident, outcome)
    try:
        await interaction.edit_original_response(
            embeds=embeds, view=view, allowed_mentions=NO_MENTIONS
        )
    except discord.HTTPException as error:
        log.warning("Could not close a card (%s) after a press: %s", ident, error)
