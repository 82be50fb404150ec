"""Blocking work of an activity (git, file walks) runs in a thread while the activity heartbeats."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from temporalio import activity

from activities.git_locks import git_step

T = TypeVar("T")
A = TypeVar("A")

DEFAULT_BEAT_SECONDS = 5.0
"""How often to heartbeat when the workflow set no heartbeat timeout."""

GIT_THREADS = 16
"""Blocking steps that may run at once in a worker. Their own pool, not asyncio's default (six
threads on two cores, shared with everything else): a few slow clones must not hold up the
integrations and reports behind them."""

_threads = ThreadPoolExecutor(max_workers=GIT_THREADS, thread_name_prefix="codedesk-git")


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

    # The step runs in this activity's context, so it can read `activity.info()`.
    context = contextvars.copy_context()
    work = asyncio.get_running_loop().run_in_executor(_threads, context.run, in_a_step)
    while True:
        done, _ = await asyncio.wait({work}, timeout=every)
        if done:
            return work.result()
        activity.heartbeat()
