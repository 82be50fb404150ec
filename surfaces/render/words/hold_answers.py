"""A hold's answer in words, as the agent reads it: standard library only (the hook imports it).

The job answers a hold with data (`desk.holds.approvals.HoldAnswer`: a verdict, a `HoldWhy` and
the fields it names); the hook reads that answer as JSON and words it here. An answer without
`why` (a job of an earlier version, or the hold channel's own refusal) says its `reason` as it is.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the hook's start-up never imports typing
if TYPE_CHECKING:
    from collections.abc import Mapping

NOT_RUN = "the call may not run"
DO_NOT_RETRY = "Do not retry this call or work around it: carry on without it, or stop and say why."
ANSWERED = ("declined", "withdrawn", "expired")
LEAVE_SHIPPING = (
    "Leave shipping to codedesk: commit your work and finish; an owner ships it (a plain "
    "`git push origin HEAD:<default branch>` asks codedesk to, once approved)."
)


def answer_words(answer: Mapping[str, object]) -> str:
    """What the hook tells the agent for one answer of its job (a decoded JSON object).

    An approval's words (`Approved by alice in codedesk (approval-…).`) or a refusal's reason;
    `""` for a call nothing held. Total over any JSON object: odd fields are left out, never raised.
    """
    verdict, why = _text(answer, "verdict"), _text(answer, "why")
    by, ident, note = _text(answer, "by"), _text(answer, "approval_id"), _text(answer, "note")
    if verdict == "allowed":
        return ""
    if verdict == "deferred":
        return _suspending(ident)
    if verdict == "approved":
        return f"Approved by {by or 'an owner'} in codedesk ({ident})."
    if verdict == "ship_requested" and why == "branch_push_requested":
        return _branch_push(by, _text(answer, "branch"), _text(answer, "sha"), ident)
    if verdict == "ship_requested":
        return _ship_requested(by, _text(answer, "branch"), ident)
    if why == "not_working" and _number(answer.get("job")) and _text(answer, "phase"):
        return f"Job {answer['job']} is not working now ({answer['phase']})."
    if why == "unanswered" and ident:
        return (
            f"Nobody has answered approval {ident} yet; it stays open. Do not work around it: "
            "carry on without the call, or ask again later (the same call joins this approval)."
        )
    if why in ANSWERED:
        said = f"{why} by {by}" if by else why
        noted = f" ({note})" if note else ""
        ship = f" {LEAVE_SHIPPING}" if _pushes(answer) else ""
        return f"This call was {said}{noted}. {DO_NOT_RETRY}{ship}"
    reason = _text(answer, "reason")
    if reason.strip():  # words given already; a blank reason says nothing
        return reason
    return f"codedesk: this call was {verdict}; {NOT_RUN}."


def _suspending(ident: str) -> str:
    """A held call of an agent that cannot defer it: codedesk ends the run and resumes it with
    the person's answer."""
    return (
        f"This call is held for a person ({ident or 'an approval'}), who has not answered yet; "
        f"{NOT_RUN} now. Stop here and end your turn: codedesk stops this run and resumes you "
        "with the person's answer (an approved call may then run once)."
    )


def _ship_requested(by: str, branch: str, ident: str) -> str:
    """Approved, but codedesk pushes: the command does not run here, and need not be retried."""
    onto = branch or "the default branch"
    return (
        f"Approved by {by or 'an owner'} ({ident}): codedesk will ask to push your commits to "
        f"{onto} once the job integrates, and an owner approves that exact commit. This command "
        "did not run here (the sandbox cannot reach the origin). Do not push again or work "
        "around it: commit your work and finish; shipping is codedesk's."
    )


def _branch_push(by: str, branch: str, sha: str, ident: str) -> str:
    """Approved, and codedesk pushes that exact commit to the branch when the run ends."""
    return (
        f"Approved by {by or 'an owner'} ({ident}): codedesk will push {sha[:12] or 'your HEAD'} "
        f"(your HEAD when you asked) to {branch or 'the branch'} on the origin once your run "
        "ends, never forced. This command did not run here (the sandbox cannot reach the "
        "origin). Do not push again or work around it: carry on; shipping is codedesk's."
    )


def _pushes(answer: Mapping[str, object]) -> bool:
    classes = answer.get("classes")
    return isinstance(classes, list) and "push" in classes


def _text(answer: Mapping[str, object], key: str) -> str:
    value = answer.get(key)
    return value if isinstance(value, str) else ""


def _number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
