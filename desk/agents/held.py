"""What a session resumed after a suspension reads when its CLI is not asked again by its hook.

Claude Code defers a held call and, resumed, asks its hook again for it. codex cannot defer: its
held call is refused with a note to stop, codedesk ends it with its thread kept, and once a
person has answered, the job resumes the thread with the answer as its prompt (`held_prompt`).
An approved call is allowed once: the next identical call runs without a new card.
"""

from __future__ import annotations

from desk.holds.approvals import HoldAnswer, HoldVerdict, HoldWhy

STOPPED = "codedesk stopped you while a person decided on a call you made"


def held_prompt(action: str, answer: HoldAnswer) -> str:
    """The resumed session's prompt for the call `action`, answered `answer`."""
    call = f"your call `{action}`" if action else "your held call"
    by = f" by {answer.by}" if answer.by else ""
    noted = f" ({answer.note})" if answer.note else ""
    if answer.verdict == HoldVerdict.APPROVED:
        said = (
            f"{call} was approved{by}: run it again, exactly as before (it is allowed once),"
            " then go on with the task."
        )
    elif answer.verdict == HoldVerdict.SHIP_REQUESTED:
        onto = answer.branch or "the branch"
        what = "your HEAD" if answer.why == HoldWhy.BRANCH_PUSH_REQUESTED else "your commits"
        said = (
            f"{call} was approved{by}: codedesk will push {what} to {onto} itself. Do not run"
            " it or push again: commit your work and go on with the task."
        )
    else:
        word = {HoldVerdict.DECLINED: "declined", HoldVerdict.EXPIRED: "expired"}.get(
            answer.verdict, "withdrawn"
        )
        said = (
            f"{call} was {word}{by}{noted}: do not retry it or work around it. Go on with the"
            " task without it, or stop and say why."
        )
    return f"{STOPPED}. The answer: {said}"
