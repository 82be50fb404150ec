"""Bench: jobs per minute through the desk's queue at max_workers 1, 2 and 4, and without it.

Usage: python bench/queue_throughput.py [--jobs N] [--json] [--out FILE]

In one run it starts its own headless Temporal dev server on free ports in a temporary home,
an in-process worker and a DeskClient, adds a bare origin to the shelf, then:

- desk, max_workers W (W = 1, 2, 4): the desk is configured as a starting worker would do it,
  N jobs are handed to it at once (`submit_job`; all but W wait in its queue), and the time runs
  from the first submission to the last report;
- direct: the same N jobs started as `CodingJob` workflows directly, all at once, with no desk
  (no admission, no queue, no cap), timed the same way.

Every job has a no-op agent, so each one ends `nothing` (no commit to integrate): the figures
are the cost of the job's workflow, worktree, agent process and admission, not of any work. It
prints jobs per minute for each row and each desk row's ratio to the direct row. It exits
non-zero unless every job ended `nothing` and every desk job number was used once.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from common import Comparison, arguments, exit_with, isolate, make_origin, report, running_desk
from temporalio.client import Client
from temporalio.runtime import (
    LogForwardingConfig,
    LoggingConfig,
    Runtime,
    TelemetryConfig,
    TelemetryFilter,
)

from desk.config.settings import DeskSettings
from desk.names import job_workflow_id
from desk.payloads.jobs import JobInput, JobOutcome, JobReport
from surfaces.clients.desk_client import DeskClient
from workers.desk_handle import configure_desk
from workflows.job.coding_job import CodingJob

REPO = "bench/queue"
WIDTHS = (1, 2, 4)
DIRECT_NUMBERS = 1_000_000
"""Direct jobs are numbered from here, far from the desk's own numbers."""


@dataclass
class Row:
    """One way of running the N jobs: through the desk at a width, or directly."""

    mode: str
    max_workers: int | None
    seconds: float = 0.0
    outcomes: list[str] = field(default_factory=list)

    @property
    def jobs_per_minute(self) -> float:
        return len(self.outcomes) / self.seconds * 60 if self.seconds else 0.0


def noop_agent() -> str:
    """An agent that does nothing and exits 0, as cheap a process as the host has."""
    found = shutil.which("true")
    return found if found else f"{sys.executable} -c pass"


async def through_desk(
    client: Client, settings: DeskSettings, width: int, jobs: int
) -> tuple[Row, list[int]]:
    """N jobs handed to the desk at once, at `width` slots; returns the row and their numbers."""
    limited = settings.model_copy(update={"max_workers": width, "max_queued": jobs})
    await configure_desk(client, limited)
    desk = DeskClient(client, limited)
    row = Row("desk", width)
    started = time.perf_counter()
    admissions = await asyncio.gather(
        *(desk.submit_job(REPO, f"desk {width} job {index}") for index in range(jobs))
    )
    numbers = [admission.number for admission in admissions]
    reports = await asyncio.gather(*(desk.wait(number) for number in numbers))
    row.seconds = time.perf_counter() - started
    row.outcomes = [report.outcome.value for report in reports]
    return row, numbers


async def direct(client: Client, settings: DeskSettings, jobs: int) -> Row:
    """The same N jobs started as CodingJob workflows at once, without the desk."""
    row = Row("direct", None)
    started = time.perf_counter()
    handles = await asyncio.gather(
        *(
            client.start_workflow(
                CodingJob.run,
                JobInput(
                    number=DIRECT_NUMBERS + index,
                    repo=REPO,
                    task=f"direct job {index}",
                    agent_command=settings.agent_command,
                    budget=settings.work_budget,
                    heartbeat_timeout=settings.heartbeat_timeout,
                    output_chars=settings.report_output_chars,
                    report_commits=settings.report_commits,
                    report_files=settings.report_files,
                    desk_id="",
                    admitted=True,
                ),
                id=job_workflow_id(DIRECT_NUMBERS + index),
                task_queue=settings.task_queue,
            )
            for index in range(jobs)
        )
    )
    reports: list[JobReport] = await asyncio.gather(*(handle.result() for handle in handles))
    row.seconds = time.perf_counter() - started
    row.outcomes = [report.outcome.value for report in reports]
    return row


async def run(jobs: int) -> tuple[list[Row], list[str]]:
    with tempfile.TemporaryDirectory(prefix="codedesk-bench-") as tmp:
        root = Path(tmp)
        isolate(root)
        origin = make_origin(root / "origin")
        async with running_desk(root / "home", noop_agent()) as (client, settings):
            await configure_desk(client, settings)
            await DeskClient(client, settings).add_repo(REPO, str(origin))
            rows, numbers = [], []
            for width in WIDTHS:
                row, used = await through_desk(client, settings, width, jobs)
                rows.append(row)
                numbers += used
            rows.append(await direct(client, settings, jobs))
    problems = [
        f"{row.mode} (max_workers {row.max_workers}): {row.outcomes.count(outcome)} jobs "
        f"ended {outcome}, not nothing"
        for row in rows
        for outcome in sorted(set(row.outcomes) - {JobOutcome.NOTHING.value})
    ]
    if sorted(numbers) != list(range(1, len(WIDTHS) * jobs + 1)):
        problems.append(f"the desk's job numbers are not 1..{len(WIDTHS) * jobs}: {numbers}")
    return rows, problems


def summary(rows: list[Row], problems: list[str], jobs: int) -> dict[str, object]:
    baseline = rows[-1].jobs_per_minute
    return {
        "jobs": jobs,
        "ok": not problems,
        "problems": problems,
        "rows": [
            {
                "mode": row.mode,
                "max_workers": row.max_workers,
                "seconds": round(row.seconds, 2),
                "jobs_per_minute": round(row.jobs_per_minute, 1),
                "outcomes": {o: row.outcomes.count(o) for o in sorted(set(row.outcomes))},
            }
            for row in rows
        ],
        "direct_jobs_per_minute": round(baseline, 1),
        "ratios": {
            str(row.max_workers): round(row.jobs_per_minute / baseline, 2)
            for row in rows
            if row.mode == "desk" and baseline
        },
    }


def table(figures: dict[str, object]) -> str:
    lines = [f"{figures['jobs']} jobs per row, no-op agent.", "mode    workers  seconds  jobs/min"]
    rows = figures["rows"]
    assert isinstance(rows, list)
    for row in rows:
        workers = "-" if row["max_workers"] is None else str(row["max_workers"])
        lines.append(
            f"{row['mode']:<7} {workers:>7}  {row['seconds']:>7.1f}  {row['jobs_per_minute']:>8.1f}"
        )
    ratios = figures["ratios"]
    assert isinstance(ratios, dict)
    lines.append(
        "desk / direct: "
        + ", ".join(f"max_workers {width}: {ratio:.2f}x" for width, ratio in ratios.items())
    )
    return "\n".join(lines)


def core_logs_to_stderr() -> None:
    """The SDK core prints its warnings (a desk task raced by an update) on stdout by default:
    send them through Python logging to stderr, so `--json` prints nothing but JSON."""
    logging_config = LoggingConfig(
        filter=TelemetryFilter(core_level="WARN", other_level="ERROR"),
        forwarding=LogForwardingConfig(logger=logging.getLogger("temporalio.core")),
    )
    Runtime.set_default(
        Runtime(telemetry=TelemetryConfig(logging=logging_config)), error_if_already_set=False
    )


def comparisons(rows: list[Row]) -> list[Comparison]:
    direct_row = rows[-1]
    return [
        Comparison(
            f"{len(row.outcomes)} jobs through the desk, max_workers {row.max_workers}",
            row.jobs_per_minute,
            "jobs/min",
            "the same jobs started directly, no desk",
            direct_row.jobs_per_minute,
        )
        for row in rows
        if row.mode == "desk"
    ]


def main() -> int:
    args = arguments(__doc__, "jobs in each row (default 20)")
    core_logs_to_stderr()
    rows, problems = asyncio.run(run(args.jobs))
    figures = summary(rows, problems, args.jobs)
    report("queue_throughput", figures, comparisons(rows), args, table(figures))
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 0 if not problems else 1


if __name__ == "__main__":
    exit_with(main)
