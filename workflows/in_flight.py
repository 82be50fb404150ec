"""A cancel that lands while one of a workflow's messages is in flight, raised once it lands.

The SDK shields a signal (and a child's start) in flight from the cancel of the task that
awaits it: it asks the core to drop the command, which works only before the command was sent,
then clears the task's cancel and goes on waiting. Once the message was sent, its await returns
as if no cancel had come, and nothing later raises it: a job would go on to run its agent or
to integrate after its owner cancelled it, an approval whose card was on its way would stay open
after its job ended (tests/jobs/test_cancel_in_flight.py, tests/holds/test_approval_cancel.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio import workflow
from temporalio.exceptions import ActivityError, CancelledError

from workflows import patches

T = TypeVar("T")


def cancelled(error: BaseException) -> bool:
    """Whether `error` is the workflow's cancel: its own, or that of an activity it cancelled."""
    return isinstance(error, asyncio.CancelledError) or (
        isinstance(error, ActivityError) and isinstance(error.cause, CancelledError)
    )


class CancelledInFlight(asyncio.CancelledError):
    """The workflow was cancelled while its message was in flight: the message was sent."""


async def heeding_cancel(message: Awaitable[T]) -> T:
    """Await `message` (a signal, a child's start) and raise the workflow's cancel if it came
    meanwhile, as `CancelledInFlight` (the message went out all the same).

    A cancel requested before the message was sent is the caller's to handle already (it is
    cleaning up after it), so only one that arrives during the await is raised. One the core
    could still drop raises a plain `CancelledError` from `message` itself: nothing was sent.
    """
    before = workflow.cancellation_reason()
    result = await message
    if (
        before is None
        and workflow.cancellation_reason() is not None
        and workflow.patched(patches.CANCEL_IN_FLIGHT)
    ):
        raise CancelledInFlight("cancelled while the workflow's message was in flight")
    return result


async def wait_for_a_person(answered: Callable[[], bool]) -> None:
    """Wait, with no deadline, until `answered` holds: a person's answer (a review, a pick, an
    approval, a budget's go-on) came.

    First raise the workflow's cancel if one came and nothing raised it, as `CancelledInFlight`:
    a cancel that was raised has ended the workflow by now, so one still pending was swallowed
    by a step nobody knew shielded it (the known ones are awaited through `heeding_cancel`). No
    answer comes for a job its owner cancelled: the wait, and that of the job of its attempts,
    would be endless.
    """
    if workflow.cancellation_reason() is not None and workflow.patched(patches.CANCEL_IN_FLIGHT):
        raise CancelledInFlight("cancelled while a step was in flight")
    await workflow.wait_condition(answered)
