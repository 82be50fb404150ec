"""Approval cards and the progress message as Discord embeds, within Discord's limits.

The card's body is the card renderer's markdown (`surfaces.render.discord.cards.approval_card`)
under a budget that fits an embed's description; everything else on it (title, fields, footer) is
escaped here. A closed card keeps its body and shows the outcome as its footer.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from desk.holds.approvals import ApprovalOutcome, ApprovalRequest, OutcomeKind
from surfaces.render.blocks import Block, Role
from surfaces.render.discord.cards import CardLimits, approval_card
from surfaces.render.discord.markdown import markdown
from surfaces.render.discord.message_text import code, cut, line, plain, sanitize
from surfaces.render.layout.approval_effect import approval_effect
from surfaces.render.layout.visible import invisible
from surfaces.render.layout.work_rounds.budget_layout import budget_summary

CARD_LIMITS = CardLimits(total_chars=3500, value_chars=200)
"""An embed's description holds 4,096 characters; the rest of the card needs the difference."""
TITLE_CHARS = 256
DESCRIPTION_CHARS = 4096
FIELD_CHARS = 1024
FOOTER_CHARS = 2048
EMBED_CHARS = 6000
"""Discord's limit on an embed's title, description, fields and footer together."""
PROGRESS_CHARS = 1500
"""Short narration: the progress message keeps the last this many characters."""
PROGRESS_FOOTER = "codedesk · progress"
"""Marks the bot's one progress message in a thread, so it is found again after a restart."""

OPEN_COLOUR = discord.Colour.orange()
OUTCOME_COLOUR = {
    OutcomeKind.APPROVED: discord.Colour.green(),
    OutcomeKind.DECLINED: discord.Colour.red(),
}
SETTLED_COLOUR = discord.Colour.light_grey()
WITHDRAWN = "Withdrawn; nothing will run"
"""The footer of a card withdrawn without a reason."""
WITHDRAWN_FOOTER_CHARS = 200


def card_embed(
    approval_id: str, request: ApprovalRequest, outcome: ApprovalOutcome | None = None
) -> discord.Embed:
    """The card of an approval: open (no outcome) or closed with the outcome as its footer."""
    if request.budget is not None:
        body = "\n".join(plain(said) for said in budget_summary(request.budget))
    else:
        body = approval_card(
            request.tool,
            request.input,
            action=request.action,
            parameters=request.parameters,
            files=[file.path for file in request.files],
            limits=CARD_LIMITS,
        )
    embed = discord.Embed(
        title=cut(plain(request.title), TITLE_CHARS) if request.title.strip() else None,
        description=cut(body, DESCRIPTION_CHARS),
        colour=OPEN_COLOUR,
    )
    if request.classes:
        held = ", ".join(code(name) for name in request.classes)
        embed.add_field(name="Held because", value=cut(held, FIELD_CHARS), inline=True)
    if request.scope:
        embed.add_field(name="From", value=cut(code(request.scope), FIELD_CHARS), inline=True)
    effect = approval_effect(request)
    if effect:
        embed.add_field(name="If approved", value=cut(plain(effect), FIELD_CHARS), inline=False)
    if request.expires_at is not None:
        expires = discord.utils.format_dt(request.expires_at, "R")
        embed.add_field(name="Expires", value=expires, inline=True)
    embed.set_footer(text=cut(line(approval_id), FOOTER_CHARS))
    if outcome is not None:
        settle(embed, approval_id, outcome)
    return embed


def settle(embed: discord.Embed, approval_id: str, outcome: ApprovalOutcome) -> discord.Embed:
    """Mark a card's embed closed: the outcome's colour, and the outcome as its footer."""
    embed.colour = OUTCOME_COLOUR.get(outcome.kind, SETTLED_COLOUR)
    room = EMBED_CHARS - len(embed) + len(embed.footer.text or "")  # the embed's total budget
    if outcome.kind == OutcomeKind.WITHDRAWN:
        footer = withdrawn_footer(outcome.note)
    else:
        footer = f"{line(outcome_text(outcome))} · {line(approval_id)}"
    embed.set_footer(text=cut(footer, min(FOOTER_CHARS, room)))
    return embed


def withdrawn_footer(note: str) -> str:
    """A withdrawn card's footer, as pi-roundtable 0.15 words it: one line of at most
    `WITHDRAWN_FOOTER_CHARS`, the reason, or `WITHDRAWN` when none was given."""
    if invisible(note):
        return WITHDRAWN
    return cut(line(note), WITHDRAWN_FOOTER_CHARS)


def closed_copy(embed: discord.Embed, approval_id: str, outcome: ApprovalOutcome) -> discord.Embed:
    """A closed copy of a card already shown (what a press on a settled card turns it into)."""
    return settle(discord.Embed.from_dict(embed.to_dict()), approval_id, outcome)


def inactive_copy(embed: discord.Embed, approval_id: str) -> discord.Embed:
    """A copy of a card whose approval is gone and whose outcome is not known."""
    copy = discord.Embed.from_dict(embed.to_dict())
    copy.colour = SETTLED_COLOUR
    footer = f"No longer active · {line(approval_id)}" if approval_id else "No longer active"
    copy.set_footer(text=cut(footer, FOOTER_CHARS))
    return copy


def outcome_text(outcome: ApprovalOutcome) -> str:
    """`Approved by alice (discord:1)`, `Withdrawn: the job has ended.`, …"""
    words = {
        OutcomeKind.APPROVED: "Approved",
        OutcomeKind.DECLINED: "Declined",
        OutcomeKind.WITHDRAWN: "Withdrawn",
        OutcomeKind.EXPIRED: "Expired",
        OutcomeKind.CANCELLED: "Cancelled",
    }
    text = words.get(outcome.kind, outcome.kind.value.capitalize())
    if outcome.by is not None:
        who = outcome.by.name or outcome.by.id
        text += f" by {who}" + (f" ({outcome.by.id})" if outcome.by.name else "")
    if outcome.note:
        text += f": {outcome.note}"
    return text


def progress_embed(text: str, lines: Sequence[str] = (), spent: str = "") -> discord.Embed:
    """The thread's one progress message: the latest narration (its end, when long), what the
    agent spent so far, and under it the agent's latest lines as a code block (as many of the
    last ones as fit)."""
    shown = text.strip() or "…"
    if len(shown) > PROGRESS_CHARS:
        shown = "…" + shown[-(PROGRESS_CHARS - 1) :]
    if spent:
        shown += f"\nSo far: {spent}"
    description = cut(sanitize(shown), DESCRIPTION_CHARS)
    kept = list(lines)
    while kept:
        block = markdown([Block(Role.CODE, code="\n".join(kept))])
        if len(description) + 1 + len(block) <= DESCRIPTION_CHARS:
            description += "\n" + block
            break
        kept.pop(0)
    embed = discord.Embed(description=description)
    embed.set_footer(text=PROGRESS_FOOTER)
    return embed


def is_progress(embeds: list[discord.Embed]) -> bool:
    return any(embed.footer.text == PROGRESS_FOOTER for embed in embeds)
