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


async def awaited(awaitable: Awaitable[T], what: str) -> T:
    """`await awaitable` (a Temporal long poll, a task); fail naming `what` after PATIENCE s."""
    try:
        async with asyncio.timeout(PATIENCE) as limit:
            return await awaitable
    except TimeoutError:
        if not limit.expired():
            raise  # the awaited thing's own timeout, not the safety net's
        raise AssertionError(f"waited {PATIENCE:g}s for {what}; it never came") from None


async def eventually(probe: Callable[[], Any], accept: Callable[[Any], Any], what: str) -> Any:
    """Look at `probe()` (a function or a coroutine function) until `accept` holds for its
    value, and return that value; fail naming `what` and the last value after PATIENCE s."""
    last: list[Any] = []

    async def looking() -> Any:
        while True:
            value = probe()
            if inspect.isawaitable(value):
                value = await value
            last[:] = [value]
            if accept(value):
                return value
            await asyncio.sleep(POLL)

    try:
        return await awaited(looking(), what)
    except AssertionError as error:
        raise AssertionError(f"{error}; last seen: {last[0] if last else None!r}") from None


async def until(check: Callable[[], Any], what: str) -> Any:
    """Look at `check()` until it gives something truthy, and return that."""
    return await eventually(check, bool, what)
