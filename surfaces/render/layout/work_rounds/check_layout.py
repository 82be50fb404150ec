"""A repository's check of a job's work, laid out once for every target."""

from __future__ import annotations

from desk.records.repo_setup import CheckRound, CheckStatus, CommandRun
from surfaces.render.blocks import Block, Tone, code, field, item, ours, text

CHECK_WORDS = {
    CheckStatus.PASSED: ("passed", Tone.GOOD),
    CheckStatus.FAILED: ("failed", Tone.BAD),
    CheckStatus.TIMED_OUT: ("timed out", Tone.BAD),
}


def check_blocks(check: CommandRun | None) -> list[Block]:
    """The check's command and end, and the tail of its output unless it passed."""
    if check is None:
        return []
    words, tone = CHECK_WORDS[check.status]
    code_of = f", exit code {check.exit_code}" if check.exit_code is not None else ""
    blocking = "" if check.blocks or check.status == CheckStatus.PASSED else " (not blocking)"
    blocks = [
        field("check", text(check.command), ours(": "), ours(words + code_of + blocking, tone))
    ]
    if check.status != CheckStatus.PASSED and check.output.strip():
        cut = f" ({check.output_cut} earlier characters cut)" if check.output_cut else ""
        blocks += [
            field("check output", ours(f"the tail{cut}", Tone.DIM)),
            code(check.output.rstrip()),
        ]
    return blocks


def check_round_blocks(rounds: list[CheckRound]) -> list[Block]:
    """Each run of a check that went back to the agent: its end, and what the agent was sent."""
    if not rounds:
        return []
    blocks = [field(f"check rounds ({len(rounds)})")]
    for done in rounds:
        words, tone = CHECK_WORDS[done.status]
        code_of = f", exit code {done.exit_code}" if done.exit_code is not None else ""
        spans = [ours(f"round {done.round}: "), ours(words + code_of, tone)]
        if done.sent:
            spans.append(ours(f"; sent to the agent as message {done.message_seq}:"))
        blocks.append(item(*spans))
        if done.sent:
            blocks.append(code(done.sent.rstrip()))
    return blocks


def check_said(check: CommandRun | None) -> str:
    """The check in one sentence for a push's card (leading space), or "" when there was none."""
    if check is None:
        return ""
    words, _ = CHECK_WORDS[check.status]
    code_of = f" (exit code {check.exit_code})" if check.exit_code is not None else ""
    said = f" The repository's check `{check.command}` {words}{code_of} on this work"
    if check.status == CheckStatus.PASSED:
        return said + "."
    tail = check.output.strip().splitlines()[-1:] or [""]
    return said + (f"; its last line: {tail[0]}" if tail[0] else "") + "."
