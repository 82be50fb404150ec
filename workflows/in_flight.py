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
from collections.abc import Awaitable
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


def heed_cancel_so_far() -> None:
    """Raise the workflow's cancel if one came and nothing raised it, as `CancelledInFlight`.

    An activity cancelled as it finished (a check of `true`), whose cancel waits for the
    activity's own end, gives its result and clears the task's cancel, as a signal in flight
    does. Call this only where a cancel that was raised has ended the workflow already: before a
    wait for a person, which a swallowed cancel would make endless.
    """
    if workflow.cancellation_reason() is not None and workflow.patched(patches.CANCEL_IN_FLIGHT):
        raise CancelledInFlight("cancelled while a step was in flight")
