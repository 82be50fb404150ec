"""A push's result in words: pushed where, by whose approval, or why nothing was pushed.

Every target says it alike: in a job's thread (narration), a card's answer, the CLI's `ship`
and a job's report.
"""

from __future__ import annotations

from desk.payloads.ship_payloads import PushResult, PushStatus
from surfaces.render.blocks import Block, Tone, line, name, ours, text


def push_result(result: PushResult) -> list[Block]:
    """One line: pushed where, by whose approval; or why nothing was pushed."""
    if result.status == PushStatus.PUSHED:
        parts = [
            ours("Pushed ", Tone.GOOD),
            name(result.sha),
            ours(" to "),
            name(result.branch),
            ours(" at "),
            name(result.destination),
        ]
        if result.already:
            parts.append(ours(" (the remote already had it)"))
        if result.approved_by:
            parts += [ours(", approved by "), text(result.approved_by)]
        if result.pull_request_url:
            parts += [ours("; pull request "), name(result.pull_request_url)]
        return [line(*parts, ours("."))]
    return [line(ours(f"Not pushed ({result.status.value}): ", Tone.BAD), text(result.reason))]
