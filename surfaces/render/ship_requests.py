"""The report's account of the agent's approved pushes that codedesk carries out itself."""

from __future__ import annotations

from desk.payloads.ship_requests import ShipRequestResult, ShipRequestStatus
from surfaces.render.blocks import Block, Tone, field, item, name, ours, text


def ship_requests(results: list[ShipRequestResult]) -> list[Block]:
    """One entry per branch the agent asked to push to: the push asked for, or why not."""
    if not results:
        return []
    entries = [_entry(result) for result in results]
    return [field(f"pushes codedesk carries out ({len(entries)})"), *entries]


def _entry(result: ShipRequestResult) -> Block:
    asked = ", ".join(result.agent_approvals)
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
