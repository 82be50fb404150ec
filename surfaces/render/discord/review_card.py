"""A job's review card in words: what waits (diffstat, check, cost), what a reviewer can do,
the whole diff as a file (cut to Discord's upload limit, saying how to see the rest), and how
the card reads once answered."""

from __future__ import annotations

from desk.payloads.conversation.review_payloads import JobDiff, ReviewRound, ReviewVerdict
from desk.payloads.jobs import JobStatus
from desk.records.repo_setup import CheckStatus
from desk.usage.tally import Usage
from surfaces.render.discord.message_text import plain
from surfaces.render.discord.uploads import ATTACHMENT_BYTES
from surfaces.render.layout.work_rounds.usage_words import cost_words

CARD_CHARS = 2000
"""Discord's limit on a message's content: the card is cut to it."""
STAT_CHARS = 1200
"""The most of the diffstat the card quotes (the file has the rest)."""
CHECK_WORDS = {
    CheckStatus.PASSED: "passed",
    CheckStatus.FAILED: "failed",
    CheckStatus.TIMED_OUT: "timed out",
}
OUTCOME_WORDS = {
    ReviewVerdict.INTEGRATE: "Integrated",
    ReviewVerdict.DISCARD: "Discarded",
    ReviewVerdict.REVISE: "Revision asked",
}


def diff_name(number: int) -> str:
    """The attached diff's file name: `job-12.diff` (Discord highlights it as a diff)."""
    return f"job-{number}.diff"


def review_card_text(status: JobStatus, diff: JobDiff, usage: Usage | None) -> str:
    """The card: round, diffstat, check (and its rounds), cost so far, what to do."""
    number = status.number
    round_ = len(status.review_rounds)
    lines = [f"**Job {number} waits for your review** (round {round_}, branch `{status.branch}`)"]
    stat = diff.stat.strip() or "(no changes against the clone's HEAD)"
    if len(stat) > STAT_CHARS:
        stat = stat[:STAT_CHARS] + "\n…"
    lines.append(f"```\n{stat.replace('```', 'ˋˋˋ')}\n```")
    lines.append(f"Check: {check_words(status)}")
    lines.append(f"Cost so far: {cost_words(usage) if usage is not None else 'not reported'}")
    if file_cut(diff):
        lines.append(f"The attached diff is cut: `codedesk diff {number}` shows all of it.")
    lines.append(
        "**Integrate** lands it in the clone, **Revise…** tells the agent what to change (it "
        "resumes its session, and a new card comes after its round), **Discard** drops the "
        "branch. Only whoever started the job and the host's owners may answer; the first "
        "answer counts."
    )
    return "\n".join(lines)[:CARD_CHARS]


def check_words(status: JobStatus) -> str:
    """`passed`, `failed (exit 1) after 3 rounds`, or that the repository has none."""
    check = status.check
    if check is None:
        return "none (the repository has no check)"
    said = f"`{plain(check.command)}` {CHECK_WORDS[check.status]}"
    if check.exit_code not in (None, 0):
        said += f" (exit {check.exit_code})"
    if len(status.check_rounds) > 1:
        said += f", after {len(status.check_rounds)} rounds"
    return said


def file_cut(diff: JobDiff) -> bool:
    """Whether the attached file leaves part of the diff out."""
    return diff.diff_cut > 0 or len(diff.diff.encode()) > ATTACHMENT_BYTES


def diff_file(number: int, diff: JobDiff, limit: int = ATTACHMENT_BYTES) -> bytes:
    """The diff as the attached file: whole, or cut to `limit` bytes with a last line saying
    how to see the rest."""
    data = diff.diff.encode()
    if not file_cut(diff) and len(data) <= limit:
        return data
    note = (
        f"\n# codedesk: the diff is cut here (Discord's upload limit); "
        f"`codedesk diff {number}` shows all of it.\n"
    ).encode()
    kept = data[: max(limit - len(note), 0)].decode(errors="ignore")
    return kept.encode() + note


def closed_text(text: str, round_: ReviewRound) -> str:
    """The card once answered: its text, with the outcome and who gave it last."""
    verdict = round_.verdict
    if verdict is None:
        return text
    outcome = f"**{OUTCOME_WORDS[verdict]} by {plain(round_.by or 'someone')}.**"
    return f"{text[: CARD_CHARS - len(outcome) - 2]}\n\n{outcome}"
