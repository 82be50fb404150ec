"""The report's account of the agent's approved pushes that codedesk carries out itself."""

from __future__ import annotations

from desk.payloads.ship_requests import (
    BranchPushResult,
    BranchPushStatus,
    ShipOutcome,
    ShipRequestResult,
    ShipRequestStatus,
)
from surfaces.render.blocks import Block, Tone, field, item, name, ours, text


def ship_requests(
    results: list[ShipRequestResult], pushed: list[BranchPushResult] | None = None
) -> list[Block]:
    """One entry per push the agent asked for and an owner approved: to the default branch, the
    push asked for or why not; to another branch, what was pushed or why not."""
    entries = [_entry(result) for result in results] + [_branch(push) for push in pushed or []]
    if not entries:
        return []
    return [field(f"pushes codedesk carries out ({len(entries)})"), *entries]


def _branch(push: BranchPushResult) -> Block:
    if push.status == BranchPushStatus.PUSHED:
        already = " (the origin had it already)" if push.already else ""
        return item(
            ours("pushed ", Tone.GOOD),
            name(push.sha),
            ours(" to "),
            name(push.branch),
            ours(f"{already} ({push.approval_id})"),
        )
    why = [ours(": "), text(push.reason)] if push.reason else [ours(": the job was cancelled")]
    return item(
        ours("nothing pushed to ", Tone.BAD),
        name(push.branch),
        *why,
        ours(f" ({push.approval_id})"),
    )


def _entry(result: ShipRequestResult) -> Block:
    asked = ", ".join(result.agent_approvals)
    if result.status == ShipRequestStatus.REQUESTED and result.outcome is not None:
        return _shipped(result, result.outcome, asked)
    if result.status == ShipRequestStatus.REQUESTED:
        return item(
            ours("push of ", Tone.GOOD),
            name(result.sha),
            ours(" to "),
            name(result.branch),
            ours(" asked for; it waits for an owner's approval of that commit: "),
            name(f"codedesk approve {result.push_approval_id}"),
            ours(f" (the agent's request: {asked})"),
        )
    if result.status == ShipRequestStatus.NOT_INTEGRATED:
        return item(
            ours("nothing pushed to ", Tone.BAD),
            name(result.branch),
            ours(f": the job did not integrate, so there is no commit to ship ({asked})"),
        )
    return item(
        ours("nothing pushed to ", Tone.BAD),
        name(result.branch),
        ours(": "),
        text(result.reason),
        ours(f" ({asked})"),
    )


def _shipped(result: ShipRequestResult, outcome: ShipOutcome, asked: str) -> Block:
    """The push asked for has ended: pushed, or why not (its `Ship`'s own words)."""
    request = ours(f" (the agent's request: {asked})")
    if outcome.status == "pushed":
        by = [ours(", approved by "), text(outcome.approved_by)] if outcome.approved_by else []
        pull = [ours("; pull request "), name(outcome.pull_request_url)]
        return item(
            ours("pushed ", Tone.GOOD),
            name(result.sha),
            ours(" to "),
            name(result.branch),
            *([ours(" at "), name(outcome.destination)] if outcome.destination else []),
            *by,
            *(pull if outcome.pull_request_url else []),
            request,
        )
    return item(
        ours("push of ", Tone.BAD),
        name(result.sha),
        ours(" to "),
        name(result.branch),
        ours(f" {outcome.status}: "),
        text(outcome.reason),
        request,
    )
