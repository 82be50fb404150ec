"""A person's pick among a job's attempts (issue 48): who may give it, when, and the first one
winning (the `pick` Update's validator and handler)."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.errors import PickError
    from desk.failures import failure_of
    from desk.payloads.conversation.attempt_payloads import AttemptState, PickAnswer, PickInput
    from desk.payloads.jobs import JobPhase

from workflows.job.record.owners_now import may_answer
from workflows.job.record.state import JobState


def pick_refusal(state: JobState, pick: PickInput) -> PickError | None:
    """Why the job does not take `pick` (None: it does): no attempts, a sender who may not, a
    pick already made, a comparison not open, an attempt that is not ready or whose check
    blocks."""
    job, who = state.job, pick.by.name or pick.by.id
    number = job.number
    attempts = state.status.attempts
    if attempts is None:
        return PickError(
            f"Job {number} has no attempts to pick from: `codedesk integrate {number}` lands "
            "a job waiting for review."
        )
    if not may_answer(state, pick.by.id):
        return PickError(
            f"{who} may not pick among job {number}'s attempts: only whoever started the job "
            "and the host's owners (CODEDESK_OWNERS, CODEDESK_DISCORD_OWNER_IDS) may."
        )
    if state.pick is not None:
        first = state.pick
        what = f"attempt {first.label}" if first.label else "discard every attempt"
        return PickError(
            f"Job {number}'s pick was made first by {first.by.name or first.by.id}: {what}. "
            f"`codedesk show {number}` shows where it is."
        )
    if state.status.phase != JobPhase.REVIEW:
        working = ", ".join(r.label for r in attempts.rows if r.state == AttemptState.WORKING)
        return PickError(
            f"Job {number}'s attempts are not all in yet (still working: {working or 'none'}): "
            f"pick once each has handed in its work or ended (`codedesk show {number}`)."
        )
    if not pick.label:
        return None
    labels = [row.label for row in attempts.rows]
    row = next((row for row in attempts.rows if row.label == pick.label), None)
    if row is None:
        return PickError(
            f"Job {number} has no attempt {pick.label!r}: its attempts are {', '.join(labels)}."
        )
    if row.state != AttemptState.READY:
        ready = [r.label for r in attempts.rows if r.state == AttemptState.READY]
        return PickError(
            f"Attempt {row.label} of job {number} has no work waiting ({row.outcome or row.state}"
            f"): pick one of {', '.join(ready)}, or discard them all "
            f"(`codedesk discard {number}`)."
        )
    if row.check_blocks:
        return PickError(
            f"Attempt {row.label}'s check did not pass, and the owner's check blocks "
            f"integration: pick another, or ask it to revise (`codedesk say {row.number} TEXT`)."
        )
    return None


def refuse_pick(state: JobState, pick: PickInput) -> None:
    """The `pick` validator: raise the refusal, if any, as its failure."""
    refused = pick_refusal(state, pick)
    if refused is not None:
        raise failure_of(refused)


def take_pick(state: JobState, pick: PickInput) -> PickAnswer:
    """Take the pick (two validated in one workflow task: the second is refused here)."""
    refuse_pick(state, pick)
    state.pick = pick
    attempts = state.status.attempts
    number = 0
    if attempts is not None and pick.label:
        number = next(row.number for row in attempts.rows if row.label == pick.label)
    return PickAnswer(number=state.job.number, label=pick.label, attempt=number)
