"""Many submissions at once: the desk admits every one, once, even past the server's limit of
updates in flight on one workflow."""

from __future__ import annotations

import asyncio
from pathlib import Path

from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from workers.desk_handle import configure_desk

REPO = "acme/api"
AT_ONCE = 24
"""More than the dev server's 10 updates in flight per workflow."""


async def test_submissions_at_once_are_all_admitted_and_run_once(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    roomy = settings.model_copy(update={"max_workers": 4, "max_queued": AT_ONCE})
    await configure_desk(desk.client, roomy)
    desk = DeskClient(desk.client, roomy)
    await desk.add_repo(REPO, str(origin))
    admissions = await asyncio.gather(
        *(desk.submit_job(REPO, f"at once {k}") for k in range(AT_ONCE))
    )
    numbers = sorted(admission.number for admission in admissions)
    assert numbers == list(range(1, AT_ONCE + 1)), numbers
    reports = await asyncio.gather(*(desk.wait(number) for number in numbers))
    assert [report.outcome for report in reports] == [JobOutcome.NOTHING] * AT_ONCE
