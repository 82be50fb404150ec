"""Waiting in tests on the thing itself, under one generous safety net instead of tight deadlines.

A test waits for an outcome (a report, a file, a listing), never for an amount of time: how
long something takes is not what a test asserts, and a machine ten times slower passes too.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

PATIENCE = float(os.environ.get("CODEDESK_TEST_PATIENCE", "120"))
"""Seconds one wait may take before the test fails naming what it waited for: a safety net
against a hang, not a measure of speed. Set CODEDESK_TEST_PATIENCE to change it."""

POLL = 0.1
"""Seconds between two looks at a condition that cannot be awaited directly."""


async def until(check: Callable[[], Any], what: str) -> Any:
    """Look at `check()` (a function or a coroutine function) until it gives something truthy,
    and return that; fail naming `what` after PATIENCE seconds."""

    async def looking() -> Any:
        while True:
            value = check()
            if inspect.isawaitable(value):
                value = await value
            if value:
                return value
            await asyncio.sleep(POLL)

    return await settled(looking(), what)


async def settled(awaitable: Awaitable[T], what: str) -> T:
    """`await awaitable` (a Temporal long poll, a task); fail naming `what` after PATIENCE s."""
    try:
        async with asyncio.timeout(PATIENCE) as limit:
            return await awaitable
    except TimeoutError:
        if not limit.expired():
            raise  # the awaited thing's own timeout, not the safety net's
        raise AssertionError(f"waited {PATIENCE:g}s for {what}; it never came") from None
