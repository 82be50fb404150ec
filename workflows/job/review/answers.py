"""A reviewer's answer to the work waiting in review: who may give it, when, and the first one
winning (the `review` Update's validator, and its handler for two answers in one workflow task).
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.errors import ReviewAnsweredError, ReviewError
    from desk.failures import failure_of
    from desk.payloads.conversation.attempt_payloads import PickInput
    from desk.payloads.conversation.review_payloads import (
        ReviewAnswer,
        ReviewAnswered,
        ReviewVerdict,
    )
    from desk.payloads.jobs import JobPhase

from workflows.job.attempts.pick import pick_refusal
from workflows.job.record.owners_now import may_answer
from workflows.job.record.state import JobState


def review_refusal(state: JobState, answer: ReviewAnswer) -> ReviewError | None:
    """Why the job does not take `answer` (None: it does): not in review, a sender who may
    not, an answer already given, an integration the owner's blocking check forbids."""
    job, who = state.job, answer.by.name or answer.by.id
    number = job.number
    if not may_answer(state, answer.by.id):
        return ReviewError(
            f"{who} may not answer job {number}'s review: only whoever started the job and "
            "the host's owners (CODEDESK_OWNERS, CODEDESK_DISCORD_OWNER_IDS) may."
        )
    if job.attempt_of and not state.picked_for_review:
        return ReviewError(
            f"Job {number} is attempt {job.attempt_label} of job {job.attempt_of}: pick it "
            f"with `codedesk pick {job.attempt_of} {job.attempt_label}` (or discard them all "
            f"with `codedesk discard {job.attempt_of}`)."
        )
    if job.attempts and answer.verdict == ReviewVerdict.INTEGRATE:
        return ReviewError(
            f"Job {number} has {len(job.attempts)} attempts: pick the one to integrate with "
            f"`codedesk pick {number} LABEL` (`codedesk show {number}` compares them)."
        )
    if job.attempts:  # a discard of every attempt is a pick of none
        return pick_refusal(state, PickInput(label="", by=answer.by, surface=answer.surface))
    if answer.verdict == ReviewVerdict.REVISE:
        return ReviewError(
            f"A revision is a message to the agent: `codedesk say {number} TEXT` says what "
            "it should change."
        )
    phase = state.status.phase
    taken = state.review_answer
    if taken is not None or (phase == JobPhase.REVIEW and state.undelivered()):
        verdict = taken.verdict if taken is not None else ReviewVerdict.REVISE
        by = taken.by if taken is not None else state.undelivered()[0].by
        return ReviewAnsweredError(
            f"Job {number}'s review was answered first by {by.name or by.id}: {verdict}. "
            f"`codedesk show {number}` shows where it is."
        )
    if phase != JobPhase.REVIEW:
        return ReviewError(
            f"Job {number} is not waiting for review (it is {phase}): only a job in review "
            f"is integrated or discarded by a person. `codedesk show {number}` shows it."
        )
    check = state.status.check
    if answer.verdict == ReviewVerdict.INTEGRATE and check is not None and check.blocking():
        return ReviewError(
            f"Job {number}'s check `{check.command}` did not pass, and the owner's check "
            f"blocks integration: ask for a revision (`codedesk say {number} TEXT`) or "
            f"discard it (`codedesk discard {number}`)."
        )
    return None


def refuse_answer(state: JobState, answer: ReviewAnswer) -> None:
    """The `review` validator: raise the refusal, if any, as its failure."""
    refused = review_refusal(state, answer)
    if refused is not None:
        raise failure_of(refused)


def take_answer(state: JobState, answer: ReviewAnswer) -> ReviewAnswered:
    """Take the answer: the waiting round ends with it. Two answers validated in one workflow
    task both pass the validator: the second is refused here, and its sender told who won."""
    refuse_answer(state, answer)
    if state.job.attempts:
        state.pick = PickInput(label="", by=answer.by, surface=answer.surface)
        return ReviewAnswered(number=state.job.number, verdict=answer.verdict)
    state.review_answer = answer
    return ReviewAnswered(number=state.job.number, verdict=answer.verdict)
