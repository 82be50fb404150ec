"""An `integrate` activity that stands in for the real one and lasts until the test lets go."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from temporalio import activity
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.payloads.jobs import IntegrationRequest, IntegrationResult, IntegrationStatus
from workers.worker import activities_for

LET_GO = asyncio.Event()
"""Set: every held integration ends (with nothing integrated)."""
INTEGRATING = asyncio.Event()
"""Set by the first integration that starts."""


def hold_integrations() -> None:
    """Start a test with no integration let go and none started yet."""
    LET_GO.clear()
    INTEGRATING.clear()


@activity.defn(name="integrate")
async def held_integrate(request: IntegrationRequest) -> IntegrationResult:
    """Lasts until LET_GO, heartbeating so that Temporal never retries it meanwhile."""
    INTEGRATING.set()
    while not LET_GO.is_set():
        activity.heartbeat()
        await asyncio.sleep(0.2)
    return IntegrationResult(status=IntegrationStatus.NOTHING)


def real_but_integrate(client: Client, settings: DeskSettings) -> list[Callable[..., Any]]:
    """The worker's activities without its `integrate`."""
    return [a for a in activities_for(client, settings) if a.__name__ != "integrate"]


def holding_integrations(client: Client, settings: DeskSettings) -> list[Callable[..., Any]]:
    """The worker's activities with `held_integrate` in place of the real integration."""
    return [*real_but_integrate(client, settings), held_integrate]
