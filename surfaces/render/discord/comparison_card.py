"""The comparison card of a job of several attempts (issue 48) as a Discord embed: a row per
attempt (its label, job, agent, where it is, its check, its change, its time and cost, the tail
of its last words), each row cut to its share of the embed, with a note when one was; a closed
card keeps its rows and says how the pick went, as its footer."""

from __future__ import annotations

import discord

from desk.payloads.conversation.attempt_payloads import Attempts
from surfaces.render.discord.embeds import DESCRIPTION_CHARS, FOOTER_CHARS
from surfaces.render.discord.markdown import markdown
from surfaces.render.discord.message_text import cut, line
from surfaces.render.layout.work_rounds.attempts_layout import attempt_row_blocks

PICK_BUTTONS = 24
"""Discord shows at most 5 rows of 5 buttons: Discard all, and a Pick button for each of the
first 24 attempts (a host allowing more has the others picked with `codedesk pick`)."""
ROW_CHARS = 700
"""Characters at most of one attempt's row (its last words included)."""
NOTE_ROOM = 200
"""The description's room kept for the note that rows were cut."""
OPEN_COLOUR = discord.Colour.blurple()
PICKED_COLOUR = discord.Colour.green()
DISCARDED_COLOUR = discord.Colour.light_grey()


def comparison_embed(number: int, attempts: Attempts) -> discord.Embed:
    """The open card: the attempts' rows, and what a press does."""
    rows = attempts.rows
    share = min(ROW_CHARS, (DESCRIPTION_CHARS - NOTE_ROOM) // max(len(rows), 1))
    shown, was_cut = [], False
    for row in rows:
        whole = markdown(attempt_row_blocks(row))
        was_cut = was_cut or len(whole) > share
        shown.append(cut(whole, share))
    if was_cut:
        shown.append(f"Rows were cut to fit: `codedesk show {number}` shows them whole.")
    if len(rows) > PICK_BUTTONS:
        shown.append(f"Attempts past the {PICK_BUTTONS}th have no button: `codedesk pick`.")
    embed = discord.Embed(
        title=f"Job {number}: its {len(rows)} attempts are in; pick one",
        description="\n".join(shown),
        colour=OPEN_COLOUR,
    )
    embed.set_footer(
        text="Pick one to integrate it (the others are removed), or discard them all. "
        "Only whoever started the job and the host's owners may."
    )
    return embed


def closed_comparison(embed: discord.Embed, outcome: str, *, picked: bool) -> discord.Embed:
    """A copy of the card shown, closed: `outcome` (who picked which, or discarded all) as its
    footer."""
    copy = discord.Embed.from_dict(embed.to_dict())
    copy.colour = PICKED_COLOUR if picked else DISCARDED_COLOUR
    copy.set_footer(text=cut(line(outcome), FOOTER_CHARS))
    return copy


def pick_outcome(label: str, attempt: int, by: str) -> str:
    """`Attempt b (job 13) was picked by alice: it integrates; the others are removed.`, or
    that every attempt was discarded (an empty label)."""
    if not label:
        return f"Every attempt was discarded by {by}: nothing lands."
    job = f" (job {attempt})" if attempt else ""
    return f"Attempt {label}{job} was picked by {by}: it integrates; the others are removed."
