"""A job's review, round by round, laid out once for every target: what the check said on each
round's work, who answered and what they asked for."""

from __future__ import annotations

from desk.config.basics.dates import shown_date
from desk.payloads.conversation.review_payloads import ReviewRound, ReviewVerdict
from surfaces.render.blocks import Block, Span, Tone, field, item, ours, text
from surfaces.render.layout.work_rounds.check_layout import CHECK_WORDS

VERDICT_WORDS = {
    ReviewVerdict.INTEGRATE: ("integrate", Tone.GOOD),
    ReviewVerdict.REVISE: ("revise", Tone.WARN),
    ReviewVerdict.DISCARD: ("discard", Tone.BAD),
}
FEEDBACK_CHARS = 200
"""Characters of a revision's words a round's line shows."""


def review_blocks(rounds: list[ReviewRound], zone: str = "") -> list[Block]:
    """The review's rounds (nothing for a job without review)."""
    if not rounds:
        return []
    blocks = [field(f"review ({len(rounds)} round{'s' if len(rounds) > 1 else ''})")]
    blocks += [item(*_round_parts(this, zone)) for this in rounds]
    return blocks


def _round_parts(this: ReviewRound, zone: str) -> list[Span]:
    checked = f"check {CHECK_WORDS[this.check][0]}" if this.check is not None else "no check"
    parts: list[Span] = [ours(f"round {this.round} ({checked}): ")]
    if this.verdict is None:
        parts.append(ours("waiting for review", Tone.WARN))
        return parts
    words, tone = VERDICT_WORDS[this.verdict]
    when = f" at {shown_date(this.answered_at, zone)}" if this.answered_at is not None else ""
    parts.append(ours(f"{words} by {this.by}{when}", tone))
    if this.feedback:
        cut = this.feedback[:FEEDBACK_CHARS] + ("…" if len(this.feedback) > FEEDBACK_CHARS else "")
        parts += [ours(": "), text(cut)]
    return parts
