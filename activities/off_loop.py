"""Blocking work of an activity (git, file walks) runs in a thread while the activity heartbeats."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from temporalio import activity

from activities.git_locks import git_step

T = TypeVar("T")
A = TypeVar("A")

DEFAULT_BEAT_SECONDS = 5.0
"""How often to heartbeat when the workflow set no heartbeat timeout."""


async def off_the_loop(step: Callable[[A], T], request: A) -> T:
    """Run `step(request)` in a thread, heartbeating meanwhile.

    On the event loop, a slow clone or rebase would stall every workflow task, query and
    heartbeat of the worker: a running agent would miss its heartbeats and be started again.
    Heartbeats let a crashed worker's step be retried after its heartbeat timeout instead of
    its start-to-close timeout. A cancelled activity stops waiting; the thread finishes its git
    command, and every step is safe to run again.
    """
    timeout = activity.info().heartbeat_timeout
    every = timeout.total_seconds() / 3 if timeout else DEFAULT_BEAT_SECONDS

    def in_a_step() -> T:
        with git_step():
            return step(request)

    work = asyncio.ensure_future(asyncio.to_thread(in_a_step))
    while True:
        done, _ = await asyncio.wait({work}, timeout=every)
        if done:
            return work.result()
        activity.heartbeat()
