"""A job of several attempts (issue 48): it runs no agent; it waits for its attempts' news,
shows the comparison in phase `review`, and passes a person's pick on.

Each attempt is a job of its own (admitted by the desk with a slot of its own): its work waits
for the pick as a reviewed job's waits for review. Once every attempt's work waits or its job
ended, the job enters `review` (no process, no slot, no deadline); with `pick_first_passing` the
first attempt whose check passed is picked without a person. The picked attempt is told to
integrate, the others that wait to discard; one still working is cancelled and its kept branch
removed here once it ended. The report names each attempt, the pick, and their spend added up.
"""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.exceptions import ActivityError, FailureError
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.jobs.worktrees import WorktreeActivities
    from desk.holds.approvals import Principal
    from desk.names import JOB_ATTEMPT_VERDICT_SIGNAL, job_workflow_id
    from desk.payloads.conversation.attempt_payloads import (
        AttemptNews,
        AttemptRow,
        Attempts,
        AttemptState,
        PickInput,
    )
    from desk.payloads.conversation.review_payloads import ReviewAnswer, ReviewVerdict
    from desk.payloads.jobs import (
        JobOutcome,
        JobPhase,
        JobReport,
        ReasonKind,
        ReleaseWorktreeInput,
        Worktree,
    )
    from desk.records.narration import Narration
    from desk.usage.tally import Usage
    from workflows.policies import git_step

from workflows.in_flight import heeding_cancel, wait_for_a_person
from workflows.job.record.owners_now import read_owners_now
from workflows.job.record.progress import narrate, on_the_clones_host, set_phase
from workflows.job.record.report import build_report
from workflows.job.record.state import JobState
from workflows.summaries import phase_details

COMPARING = "waiting for a pick among its attempts"
"""The job's current details in the Temporal UI while its comparison waits for a person."""
FIRST_PASSING = ("codedesk", "the first passing check")
"""Who picks under `--pick-first-passing`: an id and a name."""


def open_attempts(state: JobState) -> None:
    """The job's attempts start: a row each, all working."""
    job = state.job
    state.status.attempts = Attempts(
        rows=[AttemptRow(**spec.model_dump()) for spec in job.attempts],
        pick_first_passing=job.pick_first_passing,
    )
    set_phase(state, JobPhase.ATTEMPTS)


def take_news(state: JobState, news: AttemptNews) -> None:
    """An attempt's job told where it is: its row shows it (its label names it). Work ready
    for the pick is told whole; an ending leaves out what it does not know (the diffstat, the
    commits), which stays as the last news said."""
    attempts = state.status.attempts
    if attempts is None:
        return
    ending = news.state == AttemptState.ENDED
    for index, row in enumerate(attempts.rows):
        if row.label == news.label:
            facts = news.model_dump(exclude={"label"}, exclude_defaults=ending)
            attempts.rows[index] = AttemptRow.model_validate(row.model_dump() | facts)


async def compare_attempts(state: JobState) -> JobReport:
    """Wait for the attempts and the pick, pass the pick on, and report. A cancel of the job
    cancels every attempt not ended (each keeps its work, as a cancelled job does)."""
    try:
        await narrate(state, Narration.ATTEMPTS)
        pick = await _the_pick(state)
        if pick is None:
            await _remove_kept(state, "")
            return _report(state, JobOutcome.FAILED, ReasonKind.NO_ATTEMPT_READY)
        return await _pass_on(state, pick)
    except asyncio.CancelledError:
        await _stop_all(state)
        return _report(state, JobOutcome.CANCELLED, ReasonKind.CANCELLED)


async def _pass_on(state: JobState, pick: PickInput) -> JobReport:
    """The picked attempt integrates (or, asked for review, waits for an ordinary review of its
    own), the others that wait discard, the others still working are cancelled; once all
    ended, what they kept is removed."""
    attempts = _attempts(state)
    attempts.picked, attempts.picked_by = pick.label, pick.by.name or pick.by.id
    for row in attempts.rows:
        if row.label == pick.label:
            await _verdict(state, row, ReviewVerdict.INTEGRATE, pick.by)
        elif row.state == AttemptState.READY:
            await _verdict(state, row, ReviewVerdict.DISCARD, pick.by)
        elif row.state == AttemptState.WORKING:
            await _cancel(row)
    set_phase(state, JobPhase.INTEGRATING if pick.label else JobPhase.CLEANING)
    if pick.label and not state.job.review:  # asked for review: the attempt's card comes
        await narrate(state, Narration.INTEGRATING)
    await workflow.wait_condition(lambda: _all_ended(state))
    await _remove_kept(state, pick.label)
    if not pick.label:
        return _report(state, JobOutcome.DISCARDED, None)
    won = _row(state, pick.label)
    report = _report(state, won.outcome or JobOutcome.FAILED, ReasonKind.ATTEMPT_PICKED)
    report.branch, report.head = won.branch, won.head
    return report


async def _the_pick(state: JobState) -> PickInput | None:
    """The person's pick (or the first passing check's); None when every attempt ended first."""
    while True:
        await workflow.wait_condition(
            lambda: state.pick is not None or _first_passing(state) is not None or _all_in(state)
        )
        if state.pick is not None:
            return state.pick
        first = _first_passing(state)
        if first is not None:
            by = Principal(id=FIRST_PASSING[0], name=FIRST_PASSING[1])
            state.pick = PickInput(label=first.label, by=by)
            return state.pick
        if not any(row.state == AttemptState.READY for row in _attempts(state).rows):
            return None
        if state.status.phase != JobPhase.REVIEW:
            await read_owners_now(state)  # before the comparison opens: a pick counts them
            set_phase(state, JobPhase.REVIEW)
            workflow.set_current_details(phase_details(state.job, COMPARING))
            await narrate(state, Narration.COMPARING)
        await wait_for_a_person(lambda: state.pick is not None or not _all_in(state))
        if state.pick is None:  # an attempt works again (a message asked it to revise)
            set_phase(state, JobPhase.ATTEMPTS)


def _attempts(state: JobState) -> Attempts:
    attempts = state.status.attempts
    assert attempts is not None, "a job of attempts opens its rows first"
    return attempts


def _row(state: JobState, label: str) -> AttemptRow:
    return next(row for row in _attempts(state).rows if row.label == label)


def _all_in(state: JobState) -> bool:
    return all(row.state != AttemptState.WORKING for row in _attempts(state).rows)


def _all_ended(state: JobState) -> bool:
    return all(row.state == AttemptState.ENDED for row in _attempts(state).rows)


def _first_passing(state: JobState) -> AttemptRow | None:
    if not state.job.pick_first_passing:
        return None
    return next((row for row in _attempts(state).rows if row.passed()), None)


async def _verdict(state: JobState, row: AttemptRow, verdict: ReviewVerdict, by: Principal) -> None:
    """Tell attempt `row` the pick: integrate, or discard."""
    handle = workflow.get_external_workflow_handle(job_workflow_id(row.number))
    answer = ReviewAnswer(verdict=verdict, by=by, surface="pick")
    try:
        await heeding_cancel(handle.signal(JOB_ATTEMPT_VERDICT_SIGNAL, answer))
    except FailureError:  # its job is gone: nothing of it waits
        take_news(state, AttemptNews(label=row.label, state=AttemptState.ENDED))


async def _cancel(row: AttemptRow) -> None:
    """Stop an attempt that still works: its agent ends, its branch is removed once it ended."""
    handle = workflow.get_external_workflow_handle(job_workflow_id(row.number))
    try:
        await heeding_cancel(handle.cancel())
    except FailureError:
        workflow.logger.warning("Attempt %s (job %s) was gone already.", row.label, row.number)


async def _stop_all(state: JobState) -> None:
    """The job was cancelled: every attempt not ended is cancelled too, and waited for."""
    if state.status.phase != JobPhase.CLEANING:
        set_phase(state, JobPhase.CLEANING)
    for row in _attempts(state).rows:
        if row.state != AttemptState.ENDED:
            await _cancel(row)
    await workflow.wait_condition(lambda: _all_ended(state))


async def _remove_kept(state: JobState, picked: str) -> None:
    """Remove the branch and worktree every attempt but the picked one kept as it ended."""
    for row in _attempts(state).rows:
        if row.label == picked or not row.branch_kept:
            continue
        try:
            await _remove(state, row)
        except ActivityError as error:
            workflow.logger.warning("Could not remove %s: %s", row.branch, error)
            continue
        row.branch_kept = False


async def _remove(state: JobState, row: AttemptRow) -> None:
    attempt = state.job.model_copy(update={"number": row.number})
    worktree = Worktree(path=row.worktree, branch=row.branch, base=row.base)
    step = ReleaseWorktreeInput.of(attempt, worktree)
    summary = ActivityConfig(summary=f"removing {worktree.branch}")
    await on_the_clones_host(
        state,
        lambda route: workflow.execute_activity_method(
            WorktreeActivities.discard_reviewed,
            step,
            **(git_step(attempt.git_heartbeat_timeout) | route | summary),
        ),
    )


def _report(state: JobState, outcome: JobOutcome, kind: ReasonKind | None) -> JobReport:
    report = build_report(state.job, outcome, kind=kind)
    attempts = _attempts(state)
    report.attempts = attempts
    usage: Usage | None = None
    for row in attempts.rows:
        if row.usage is not None:
            usage = row.usage if usage is None else usage.plus(row.usage)
    report.usage = usage
    return report
