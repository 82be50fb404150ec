"""The desk's daily spend limit: the day's total in its state, and what it holds back.

Each job's `job_ended` signal carries what its agent spent; the desk adds it to the UTC day's
total (`DeskState.day_spend`, carried across continue-as-new). Once that total reaches the host's
`daily_spend_limit`, no queued job starts until the next UTC day, and a new task is queued for
that day or refused (`daily_limit_action`). A job that starts under a daily limit may spend at
most what is left of the day: jobs running at once may together pass the limit by what each
was allowed when it started, never more.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from decimal import Decimal

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.errors import QueueFullError
    from desk.failures import failure_of
    from desk.payloads.jobs import DeskState, JobInput
    from desk.policy.daily import DailyLimitAction, DayLimitReached, refusal, stricter
    from desk.policy.utc_days import shown_utc

from workflows import patches


def day_reached(state: DeskState) -> DayLimitReached | None:
    """The day's total and when it resets, when it has reached the host's daily limit."""
    policy = state.policy
    limit = policy.daily_spend_limit if policy is not None else None
    return state.day_spend.reached(limit, workflow.now())


def day_left(state: DeskState) -> Decimal | None:
    """What jobs may still spend today (None: the host sets no daily limit)."""
    policy = state.policy
    limit = policy.daily_spend_limit if policy is not None else None
    return state.day_spend.left(limit, workflow.now())


def within_the_day(state: DeskState, job: JobInput) -> JobInput:
    """`job` with its spend limit at most what is left of the day."""
    left = day_left(state)
    if left is None:
        return job
    return job.model_copy(update={"spend_limit": stricter(job.spend_limit, left)})


def refuse_past_the_day(state: DeskState, waiting: int, max_queued: int) -> DayLimitReached | None:
    """Refuse a new task while the day's limit is reached, as the host says (refused, or
    its queue is full); else how the day stands when the task must wait for the next one.

    Raises:
        ApplicationError: a `DailySpendLimitError` or a `QueueFullError`, by its wire name.
    """
    reached = day_reached(state)
    if reached is None:
        return None
    policy = state.policy
    if policy is not None and policy.daily_limit_action == DailyLimitAction.REFUSE:
        raise failure_of(refusal(reached))
    if waiting >= max_queued:
        raise failure_of(
            QueueFullError(
                f"The desk's queue is full: {waiting} jobs wait (max_queued {max_queued}) "
                f"for the next UTC day, when its daily spend limit of ${reached.limit} "
                f"resets ({shown_utc(reached.resets_at)}; ${reached.spent} spent today). Try "
                "again then, or cancel one with `codedesk cancel N`."
            )
        )
    return reached


async def wait_for_the_day(state: DeskState, wakes: Callable[[], bool]) -> bool:
    """While the day's limit holds a queue, wait until the next UTC day or until `wakes`;
    False at once when the queue is not held (the caller waits its own way)."""
    reached = day_reached(state)
    if reached is None or not state.queue or not workflow.patched(patches.DAILY_SPEND_LIMIT):
        return False
    with suppress(TimeoutError):
        await workflow.wait_condition(
            wakes,
            timeout=reached.resets_at - workflow.now(),
            timeout_summary="the next UTC day: the daily spend limit holds the queue",
        )
    return True
