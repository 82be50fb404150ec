"""An attempt's side (issue 48): it waits for its job's pick where a job waits for review, and
tells its job where it is (working, its work ready for the pick, ended).

An attempt is an ordinary job of its own number (`attempt_of` set): its slot, budget, holds and
check are its own. Its work waits in phase `review` like a reviewed job's, but only its job's
pick answers it (the `attempt_verdict` signal); a message to it asks for a revision as in any
review. Its news goes to its job by signal; a job already gone is not waited for.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from desk.names import JOB_ATTEMPT_NEWS_SIGNAL, job_workflow_id
    from desk.payloads.conversation.attempt_payloads import AttemptNews, AttemptState
    from desk.payloads.conversation.review_payloads import ReviewAnswer, ReviewVerdict
    from desk.payloads.jobs import JobPhase, JobReport, Worktree
    from desk.records.repo_setup import CommandRun

from workflows.in_flight import heeding_cancel
from workflows.job.record.progress import branch_so_far
from workflows.job.record.state import JobState

FINAL_WORDS = 600
"""How much of the end of an attempt's last output its job's comparison shows."""


def is_attempt(state: JobState) -> bool:
    return bool(state.job.attempt_of)


async def tell_ready(
    state: JobState, worktree: Worktree, check: CommandRun | None, output: str
) -> None:
    """The attempt's work (and its check) waits for the pick: tell its job, with its diffstat."""
    if not is_attempt(state):
        return
    job = state.job
    so_far = await branch_so_far(state, worktree, "for the comparison")
    await _tell(
        state,
        AttemptNews(
            label=job.attempt_label,
            state=AttemptState.READY,
            check=check.status if check is not None else None,
            check_blocks=check is not None and check.blocking(),
            stat=so_far.diffstat,
            commits=[commit.subject for commit in so_far.commits],
            worked=state.clock.worked,
            usage=state.spent,
            final_words=output[-FINAL_WORDS:],
            branch=worktree.branch,
            worktree=worktree.path,
            base=worktree.base,
        ),
    )


async def tell_working(state: JobState) -> None:
    """A message asked the attempt for a revision: its agent works again."""
    if is_attempt(state):
        await _tell(state, AttemptNews(label=state.job.attempt_label, state=AttemptState.WORKING))


async def tell_ended(state: JobState, report: JobReport) -> None:
    """The attempt ended: its job gets its outcome, cost and what was kept."""
    if not is_attempt(state):
        return
    await _tell(
        state,
        AttemptNews(
            label=state.job.attempt_label,
            state=AttemptState.ENDED,
            check=report.check.status if report.check is not None else None,
            worked=state.clock.worked,
            usage=report.usage,
            final_words=report.output[-FINAL_WORDS:],
            outcome=report.outcome,
            branch=report.branch,
            branch_kept=report.branch_kept,
            worktree=report.worktree,
            base=report.base,
            head=report.head,
        ),
    )


def take_verdict(state: JobState, answer: ReviewAnswer) -> None:
    """The job's pick for this attempt: its answer now if its work waits, else when it does."""
    if state.status.phase == JobPhase.REVIEW and state.review_answer is None:
        apply_verdict(state, answer)
    else:
        state.pending_verdict = answer


def apply_verdict(state: JobState, answer: ReviewAnswer) -> None:
    """The pick answers the round waiting: discard, or integrate; a picked attempt whose
    requester or owner asked for a review waits for an ordinary review instead."""
    if answer.verdict == ReviewVerdict.INTEGRATE and state.review_after_pick:
        state.picked_for_review = True
    else:
        state.review_answer = answer


def reviewed_after_the_pick(state: JobState) -> bool:
    """Whether the picked attempt's work now waits for an ordinary review (people answer it)."""
    return state.picked_for_review and state.review_answer is None


async def _tell(state: JobState, news: AttemptNews) -> None:
    """Signal the news to the attempt's job. A cancel of the attempt that lands while the news
    is in flight is raised once it lands (the SDK would let the signal's await swallow it, and
    the attempt would then wait for a pick its job no longer gives); the ending's news is told
    after the attempt's report, when a cancel changes nothing."""
    handle = workflow.get_external_workflow_handle(job_workflow_id(state.job.attempt_of))
    signal = handle.signal(JOB_ATTEMPT_NEWS_SIGNAL, news)
    try:
        await (signal if news.state == AttemptState.ENDED else heeding_cancel(signal))
    except FailureError:
        workflow.logger.warning(
            "Job %s is gone: attempt %s's news was not told.",
            state.job.attempt_of,
            state.job.attempt_label,
        )
