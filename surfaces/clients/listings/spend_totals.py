"""What finished jobs cost, added up per day, repository and requester (`codedesk spend`).

Read from visibility, as `codedesk jobs` is: each finished job with a known cost carries it as
its `CodedeskCostUsd` search attribute. A job still running, or one whose cost is not known (a
CLI that reports no money for a model the price table does not name), is counted apart and
never as 0. Today's total against the desk's daily spend limit is the desk's own, asked of its
worker with the query `codedesk jobs` reads positions by (when a worker polls).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from desk.config.basics.dates import zone_of
from surfaces.clients.listings.job_listing import (
    JOBS_QUERY,
    DayView,
    JobRow,
    day_view,
    desk_state_json,
    job_row,
    listed,
    with_attempts,
)
from surfaces.clients.listings.worker_check import pollers_of

if TYPE_CHECKING:
    from temporalio.service import WorkflowService

SPEND_LIMIT = 10_000
"""The most jobs one `codedesk spend` reads (the newest first)."""


@dataclass
class Spend:
    """Dollars per day (in the zone given), per repository and per requester, and in all."""

    total: float = 0.0
    jobs: int = 0
    unknown: int = 0
    """Finished jobs whose cost is not known."""
    running: int = 0
    by_day: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    by_repo: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    by_requester: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    day: DayView | None = None
    """Today's total against the desk's daily spend limit (None: no limit, or no answer)."""

    @classmethod
    def of(cls, rows: list[JobRow], zone: str = "") -> Spend:
        spend = cls()
        for row in rows:
            if row.status == "running":
                spend.running += 1
            elif row.cost is None:
                spend.unknown += 1
            else:
                spend.add(row, row.cost, zone)
        return spend

    def add(self, row: JobRow, cost: float, zone: str) -> None:
        self.total += cost
        self.jobs += 1
        day = row.started.astimezone(zone_of(zone)).strftime("%Y-%m-%d") if row.started else "?"
        self.by_day[day] += cost
        self.by_repo[row.repo or "?"] += cost
        self.by_requester[row.requester or "?"] += cost

    def as_json(self) -> dict[str, Any]:
        def rounded(values: dict[str, float]) -> dict[str, float]:
            return {key: round(value, 6) for key, value in sorted(values.items())}

        return {
            "total_usd": round(self.total, 6),
            "jobs": self.jobs,
            "jobs_cost_unknown": self.unknown,
            "jobs_running": self.running,
            "by_day": rounded(self.by_day),
            "by_repo": rounded(self.by_repo),
            "by_requester": rounded(self.by_requester),
            "daily_limit": self.day.as_json() if self.day is not None else None,
        }


async def spend(service: WorkflowService, namespace: str, task_queue: str, zone: str = "") -> Spend:
    """The spend of the newest SPEND_LIMIT jobs, and today's against the desk's daily limit."""
    infos, pollers = await asyncio.gather(
        listed(service, namespace, JOBS_QUERY, SPEND_LIMIT),
        pollers_of(service, namespace, task_queue),
    )
    # A job of attempts reports their spend added up: each attempt's own row is left out.
    found = Spend.of(with_attempts([job_row(info) for info in infos]), zone)
    state = await desk_state_json(service, namespace) if pollers else None
    if state is not None:
        found.day = day_view(state, datetime.now(UTC))
    return found
