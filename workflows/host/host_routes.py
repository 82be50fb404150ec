"""Routing shelf activities to the queue of the host that holds the clone, and waiting for it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TypeVar

from temporalio import workflow
from temporalio.exceptions import ActivityError, TimeoutError, TimeoutType

with workflow.unsafe.imports_passed_through():
    from desk.names import host_task_queue

from workflows import patches

T = TypeVar("T")
Route = workflow.ActivityConfig
"""The options that send an activity to a host's queue: splatted beside the step's own config."""


def host_route(host: str, wait: timedelta) -> Route:
    """The options that send an activity to `host`'s queue; none when no host is known.

    The schedule-to-start timeout makes a missing host visible: without it the activity would
    wait on the host's queue forever, and nobody would know why.
    """
    if not host or not workflow.patched(patches.HOST_QUEUES):
        return Route()
    return Route(
        task_queue=host_task_queue(workflow.info().task_queue, host),
        schedule_to_start_timeout=wait,
    )


def host_missing(error: BaseException | None) -> bool:
    """Whether an activity failed because no worker of its host took it in time."""
    cause = error.cause if isinstance(error, ActivityError) else None
    return isinstance(cause, TimeoutError) and cause.type == TimeoutType.SCHEDULE_TO_START


async def on_host(
    call: Callable[[Route], Awaitable[T]],
    host: str,
    wait: timedelta,
    waiting: Callable[[str], Awaitable[None]] | None = None,
) -> T:
    """Run `call` on `host`'s queue, again and again while the host has no worker.

    `waiting` hears the host's name while the step waits for it, and "" once it ran. Nothing
    moves to another host: the step runs where the clone is, or not yet.
    """
    route = host_route(host, wait)
    while True:
        try:
            result = await call(route)
        except ActivityError as error:
            if not route or not host_missing(error):
                raise
            workflow.logger.warning("Host %s has no worker; the step waits for it.", host)
            if waiting is not None:
                await waiting(host)
            continue
        if waiting is not None:
            await waiting("")
        return result
