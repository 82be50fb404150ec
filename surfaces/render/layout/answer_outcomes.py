"""What an answer to an approval led to, in words: a push made, refused or declined, a job's call
run or not, or where to see what is not known yet."""

from __future__ import annotations

from typing import assert_never

from desk.errors import ApprovalNotFoundError, ApprovalSettledError, JobNotFoundError
from desk.holds.approvals import ApprovalRequest, CallWithdrawal, CallWithdrawalKind, Decision
from desk.names import PUSH_ID_PREFIX, job_number
from desk.payloads.ship_payloads import PushResult
from surfaces.render.blocks import Block, line, name, ours, text
from surfaces.render.words.push_words import push_result


def answer_led_to(
    decision: Decision,
    request: ApprovalRequest | None,
    asker: str,
    push: PushResult | None,
    link: str,
) -> list[Block]:
    """The lines after `<id>: approved.`: what the approval's asker did with the answer.

    `asker` is the workflow that asked (a push or a job), `push` a push's result when it ended in
    time, `link` where the asker is seen in the Temporal UI. Nothing is said of an asker of no
    kind codedesk knows.
    """
    if asker.startswith(PUSH_ID_PREFIX):
        if push is not None:
            return push_result(push)
        return [
            line(
                ours("The push goes on; its outcome will be in workflow "),
                name(asker),
                *([ours(" ("), name(link), ours(")")] if link else []),
                ours("."),
            )
        ]
    try:
        number = job_number(asker)
    except JobNotFoundError:
        return []
    if request is None:
        return []
    call = [ours(f"Job {number}'s "), text(request.tool), ours(" call")]
    if decision == Decision.DECLINE:
        return [line(*call, ours(" does not run: its agent is told it was declined."))]
    if request.ships_to:
        return [
            line(
                *call,
                ours(" does not run: codedesk asks for the push of the job's commits to "),
                name(request.ships_to),
                ours(" once the job integrates, on a card of its own."),
            )
        ]
    if request.pushes_to:
        return [
            line(
                *call,
                ours(" does not run: codedesk pushes "),
                name(request.push_head),
                ours(" to "),
                name(request.pushes_to),
                ours(" once the agent's run ends."),
            )
        ]
    where = " in its sandbox" if request.confined else ""
    return [
        line(
            *call,
            ours(
                f" runs{where}: its agent is told now, or, if it stopped waiting, its next "
                "identical call runs, once."
            ),
        )
    ]


def withdrawal_words(done: CallWithdrawal) -> str:
    """What `codedesk withdraw` did, in one line; an `ApprovalSettledError` or
    `ApprovalNotFoundError` for a withdrawal that could change nothing it was asked to."""
    ident = done.approval_id
    match done.kind:
        case CallWithdrawalKind.WITHDRAWING:
            return (
                f"Withdrawal of {ident} sent; it counts unless the approval settled first. A "
                "withdrawn call is not held again: an identical call is refused as withdrawn."
            )
        case CallWithdrawalKind.FORGOTTEN:
            return (
                f"Withdrew {ident}: it was approved late and no call had used it yet, so it will "
                f"not run; job {done.job} refuses an identical call as withdrawn."
            )
        case CallWithdrawalKind.ALREADY:
            return f"{ident} was withdrawn already; nothing changed."
        case CallWithdrawalKind.SETTLED:
            return f"{ident} was {done.outcome or 'settled'} already: its call does not run."
        case CallWithdrawalKind.APPROVED:
            raise ApprovalSettledError(
                f"{ident} was approved before this withdrawal: an approval answered first "
                "stands (its call ran, or runs once); nothing was withdrawn."
            )
        case CallWithdrawalKind.UNKNOWN:
            raise ApprovalNotFoundError(
                f"Job {done.job} held no call {ident}: `codedesk approvals` lists the open "
                f"approvals, `codedesk show {done.job}` the job's held calls."
            )
        case _:
            assert_never(done.kind)
