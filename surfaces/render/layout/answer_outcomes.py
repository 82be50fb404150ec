"""What an answer to an approval led to, in words: a push made, refused or declined, a job's call
run or not, or where to see what is not known yet."""

from __future__ import annotations

from desk.errors import JobNotFoundError
from desk.holds.approvals import ApprovalRequest, Decision
from desk.names import PUSH_ID_PREFIX, job_number
from desk.payloads.shipping import PushResult
from surfaces.render.layout.blocks import Block, line, name, ours, text
from surfaces.render.layout.report_layout import push_result


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
