"""A job's attempts side by side (issue 48), laid out once for every target: per attempt its
agent, where it is, its check, its change, its time and cost, its last words; and the pick."""

from __future__ import annotations

from desk.config.basics.durations import format_duration
from desk.payloads.conversation.attempt_payloads import AttemptRow, Attempts, AttemptState
from surfaces.render.blocks import Block, Span, Tone, field, item, ours, text
from surfaces.render.layout.work_rounds.check_layout import CHECK_WORDS
from surfaces.render.layout.work_rounds.usage_words import cost_words

FINAL_WORDS_CHARS = 160
"""Characters of an attempt's last words its row shows."""
STATE_WORDS = {
    AttemptState.WORKING: ("working", Tone.WARN),
    AttemptState.READY: ("ready for the pick", Tone.GOOD),
    AttemptState.ENDED: ("ended", Tone.DIM),
}


def attempts_blocks(attempts: Attempts | None) -> list[Block]:
    """The attempts' rows and the pick (nothing for a job of one agent)."""
    if attempts is None:
        return []
    picked = ""
    if attempts.picked:
        by = f" by {attempts.picked_by}" if attempts.picked_by else ""
        picked = f": attempt {attempts.picked} picked{by}"
    elif attempts.pick_first_passing:
        picked = ": the first whose check passes integrates"
    blocks = [field(f"attempts ({len(attempts.rows)}){picked}")]
    for row in attempts.rows:
        blocks.extend(attempt_row_blocks(row, picked=row.label == attempts.picked))
    return blocks


def attempt_row_blocks(row: AttemptRow, *, picked: bool = False) -> list[Block]:
    """One attempt's row, and its last words under it when it has any."""
    blocks = [item(*_row_parts(row, picked))]
    if row.final_words.strip():
        words = row.final_words.strip().splitlines()[-1][-FINAL_WORDS_CHARS:]
        blocks.append(item(ours("   last words: "), text(words, Tone.DIM)))
    return blocks


def _row_parts(row: AttemptRow, picked: bool) -> list[Span]:
    agent = row.agent or row.agent_command.split(" ", 1)[0].rsplit("/", 1)[-1]
    parts: list[Span] = [ours(f"{row.label}{' (picked)' if picked else ''}: job {row.number}, ")]
    parts.append(text(agent))
    state, tone = STATE_WORDS[row.state]
    if row.outcome is not None:
        state = str(row.outcome)
    parts.append(ours(f"; {state}", tone))
    if row.check is not None:
        words, check_tone = CHECK_WORDS[row.check]
        parts.append(ours(f"; check {words}", check_tone))
    if row.stat:
        parts.append(ours(f"; {row.stat.strip()}"))
    if row.worked:
        parts.append(ours(f"; worked {format_duration(row.worked)}"))
    if row.usage is not None:
        parts.append(ours(f"; {cost_words(row.usage)}"))
    return parts
