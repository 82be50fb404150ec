"""Bench: one worker under load: open approvals, queued jobs, listings and memory, in one run.

Usage: python bench/load.py [--jobs N] [--approvals A] [--queued Q] [--workers W] [--runs R]
                            [--json] [--out FILE]

It starts its own headless dev server and a real `codedesk worker` process (max_workers W,
default 4), then, in order:

1. N jobs (default 800) that finish at once; after the first 20, `codedesk jobs` is timed
   (R runs, default 5): the baseline listing (with the held jobs below, 1,004 jobs are listed
   under load);
2. A open approvals (default 1000); after the first 20, `codedesk approvals` is timed: its
   baseline;
3. Q + W jobs whose agent waits for a release file: W run, Q (default 200) wait in the queue;
4. with all of that held, the worker's resident memory (VmRSS) is read, and both listings are
   timed again;
5. the waiting jobs are released and every approval is approved.

Comparisons: each listing under load against the same listing with 20 entries (wall time, and
the command's own CPU time, which others' load moves far less), the worker's memory under load
against the same worker idle. Targets (issue 13): each listing under 1 s, the
worker under 300 MB. It exits non-zero unless every job's agent ran exactly once, every job ended
`nothing`, every approval was approved once, and the desk ended with nothing running or queued. It
also counts the submission tries the desk did not answer in time (asked again, same request id).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import subprocess
import sys
import tempfile
import uuid
from collections import Counter
from collections.abc import Awaitable, Iterable
from pathlib import Path
from typing import TypeVar

from common import (
    Comparison,
    arguments,
    exit_with,
    isolate,
    make_origin,
    median,
    report,
    run_times_ms,
    start_server,
)
from temporalio.client import Client

from desk.config.settings import DeskSettings, load_settings
from desk.holds.approvals import (
    AnswerInput,
    ApprovalRequest,
    OutcomeKind,
    Principal,
    approval_id,
)
from surfaces.clients.desk_client import DeskClient
from workers.temporal.client import connect
from workflows.shipping.approval import Approval

REPO = "bench/load"
CODEDESK = str(Path(sys.executable).parent / "codedesk")
FIRST = 20
"""Entries in the baseline listings."""
AT_ONCE = 32
"""Approval starts and answers the bench sends at once."""
SUBMIT_AT_ONCE = 8
"""Submissions at once: under the server's limit of 10 updates in flight on the desk."""
OWNER = Principal(id="local:bench", name="bench")

AGENT = """\
echo "$CODEDESK_JOB" >> "{ran}"
case "$CODEDESK_TASK" in
  hold*) while [ ! -e "{release}" ]; do sleep 0.2; done ;;
esac
"""
"""The bench agent: records that it ran; a `hold` job waits until the release file exists."""

T = TypeVar("T")


class Unanswered(logging.Handler):
    """Counts the submission tries the desk did not answer in time (each was asked again)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.tries = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.tries += int("did not answer" in record.getMessage())


def more_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--approvals", type=int, default=1000, help="approvals held open")
    parser.add_argument("--queued", type=int, default=200, help="jobs held in the desk's queue")
    parser.add_argument("--workers", type=int, default=4, help="the desk's max_workers")
    parser.add_argument("--runs", type=int, default=5, help="runs of each listing")


async def bounded(calls: Iterable[Awaitable[T]], at_once: int = AT_ONCE) -> list[T]:
    """Await every call, at most `at_once` at a time, in order."""
    gate = asyncio.Semaphore(at_once)

    async def one(call: Awaitable[T]) -> T:
        async with gate:
            return await call

    return await asyncio.gather(*(one(call) for call in calls))


def rss_mb(pid: int) -> tuple[float, float]:
    """A process's resident memory now and at its peak, in MB (from /proc)."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def cli_env(settings: DeskSettings) -> dict[str, str]:
    return {
        **os.environ,
        "CODEDESK_HOME": str(settings.home),
        "CODEDESK_TEMPORAL_ADDRESS": settings.temporal_address,
        "CODEDESK_NAMESPACE": settings.namespace,
        "CODEDESK_TASK_QUEUE": settings.task_queue,
        "CODEDESK_AGENT_COMMAND": settings.agent_command,
        "CODEDESK_MAX_WORKERS": str(settings.max_workers),
        "CODEDESK_MAX_QUEUED": str(settings.max_queued),
        "CODEDESK_OWNER_ID": OWNER.id,
        "CODEDESK_SANDBOX": "none",  # the agent writes its record outside its worktree
    }


def timed(settings: DeskSettings, command: str, runs: int) -> list[tuple[float, float]]:
    """(wall, CPU) ms of `runs` runs of `codedesk COMMAND`, after one that must succeed."""
    argv = [CODEDESK, command]
    done = subprocess.run(argv, env=cli_env(settings), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"codedesk {command} exited {done.returncode}: {done.stderr[-500:]}")
    return run_times_ms(argv, runs, cli_env(settings))


def walls(times: list[tuple[float, float]]) -> list[float]:
    return [wall for wall, _ in times]


def cpus(times: list[tuple[float, float]]) -> list[float]:
    return [used for _, used in times]


async def desk_ready(desk: DeskClient, settings: DeskSettings) -> None:
    """Wait until the worker configured the desk with this bench's limits."""
    for _ in range(600):
        state = await desk.desk_state()
        if state is not None and state.limits.max_queued == settings.max_queued:
            return
        await asyncio.sleep(0.1)
    raise RuntimeError("the worker never configured the desk")


async def run_jobs(desk: DeskClient, tasks: list[str]) -> list[tuple[int, str]]:
    """Submit jobs (at most what the desk admits at once) and wait for each; (number, outcome)."""
    width = desk.settings.max_workers + desk.settings.max_queued
    done = []
    for start in range(0, len(tasks), width):
        batch = tasks[start : start + width]
        admitted = await bounded((desk.submit_job(REPO, task) for task in batch), SUBMIT_AT_ONCE)
        reports = await asyncio.gather(*(desk.wait(made.number) for made in admitted))
        done += [(made.number, made.outcome.value) for made in reports]
    return done


async def open_approvals(client: Client, settings: DeskSettings, count: int) -> list[str]:
    requests = [
        ApprovalRequest(
            tool="Bash",
            input={"command": f"git push origin main # bench {uuid.uuid4().hex[:8]}"},
            action="Run: git push origin main",
            scope=f"bench-{k}",
            owners=[OWNER.id],
            origin="cli",
            classes=["push"],
        )
        for k in range(count)
    ]
    handles = await bounded(
        client.start_workflow(
            Approval.run,
            ask,
            id=approval_id(ask.scope, ask.tool, ask.input),
            task_queue=settings.task_queue,
        )
        for ask in requests
    )
    return [handle.id for handle in handles]


async def queue_filled(desk: DeskClient, queued: int) -> None:
    for _ in range(1200):
        state = await desk.desk_state()
        if state is not None and len(state.queue) >= queued:
            return
        await asyncio.sleep(0.25)
    raise RuntimeError(f"the desk's queue never held {queued} jobs")


async def load(root: Path, args: argparse.Namespace) -> dict[str, object]:
    ran, release = root / "ran.txt", root / "release"
    agent = root / "agent.sh"
    agent.write_text(AGENT.format(ran=ran, release=release))
    home = root / "home"
    server = await start_server(home)
    worker: subprocess.Popen[bytes] | None = None
    unanswered = Unanswered()
    client_log = logging.getLogger("surfaces.clients.desk_client")
    client_log.addHandler(unanswered)
    client_log.setLevel(logging.INFO)
    try:
        settings = load_settings(
            home=home,
            temporal_address=server.address,
            namespace="default",
            task_queue=f"bench-{uuid.uuid4().hex[:8]}",
            agent_command=f"sh {agent}",
            max_workers=args.workers,
            max_queued=max(args.queued, 1),
        )
        log = (root / "worker.log").open("wb")
        worker = subprocess.Popen(
            [CODEDESK, "worker"], env=cli_env(settings), stdout=log, stderr=subprocess.STDOUT
        )
        client = await connect(settings)
        desk = DeskClient(client, settings)
        await desk_ready(desk, settings)
        await desk.add_repo(REPO, str(make_origin(root / "origin")))
        idle_mb, _ = rss_mb(worker.pid)

        first = min(FIRST, args.jobs)
        finished = await run_jobs(desk, [f"quick {k}" for k in range(first)])
        jobs_few = await asyncio.to_thread(timed, settings, "jobs", args.runs)
        finished += await run_jobs(desk, [f"quick {k}" for k in range(first, args.jobs)])

        opened = await open_approvals(client, settings, min(FIRST, args.approvals))
        approvals_few = await asyncio.to_thread(timed, settings, "approvals", args.runs)
        opened += await open_approvals(client, settings, args.approvals - len(opened))

        held = await bounded(
            (desk.submit_job(REPO, f"hold {k}") for k in range(args.queued + args.workers)),
            SUBMIT_AT_ONCE,
        )
        await queue_filled(desk, args.queued)
        loaded_mb, _ = rss_mb(worker.pid)
        listed_jobs = (await client.count_workflows("WorkflowType = 'CodingJob'")).count
        jobs_many = await asyncio.to_thread(timed, settings, "jobs", args.runs)
        approvals_many = await asyncio.to_thread(timed, settings, "approvals", args.runs)

        release.touch()
        finished += [
            (made.number, made.outcome.value)
            for made in await asyncio.gather(*(desk.wait(job.number) for job in held))
        ]
        answer = AnswerInput(by=OWNER, card_id="bench")
        await bounded(
            client.get_workflow_handle_for(Approval.run, ident).signal(Approval.approve, answer)
            for ident in opened
        )
        outcomes = await bounded(
            client.get_workflow_handle_for(Approval.run, ident).result() for ident in opened
        )
        state = await desk.desk_state()
        # The kernel updates VmHWM lazily: a peak read later may lag a VmRSS read before.
        peak_mb = max(rss_mb(worker.pid)[1], loaded_mb)
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=60)
        server.stop()

    few = min(FIRST, args.approvals)
    runs = Counter(int(line) for line in ran.read_text().split()) if ran.exists() else Counter()
    numbers = [number for number, _ in finished]
    problems = [f"job {n}'s agent ran {runs[n]} times" for n in numbers if runs[n] != 1]
    problems += [f"job {n} ended {outcome}" for n, outcome in finished if outcome != "nothing"]
    strangers = sorted(set(runs) - set(numbers))
    if strangers:
        problems.append(f"agents ran for jobs the bench never started: {strangers}")
    kinds = Counter(outcome.kind for outcome in outcomes)
    if kinds[OutcomeKind.APPROVED] != len(opened):
        problems.append(f"approvals ended {dict(kinds)}, not {len(opened)} approved")
    if state is None or state.running or state.queue:
        problems.append(f"the desk did not drain: {state}")
    return {
        "ok": not problems,
        "problems": problems,
        "jobs": len(numbers),
        "approvals": len(opened),
        "queued": args.queued,
        "max_workers": args.workers,
        "baseline_jobs": first,
        "baseline_approvals": few,
        "outcomes": dict(Counter(outcome for _, outcome in finished)),
        "idle_rss_mb": round(idle_mb, 1),
        "loaded_rss_mb": round(loaded_mb, 1),
        "peak_rss_mb": round(peak_mb, 1),
        "listing_ms": {
            f"jobs ({first})": [round(ms, 1) for ms in walls(jobs_few)],
            f"jobs ({len(numbers)})": [round(ms, 1) for ms in walls(jobs_many)],
            f"approvals ({few})": [round(ms, 1) for ms in walls(approvals_few)],
            f"approvals ({len(opened)})": [round(ms, 1) for ms in walls(approvals_many)],
        },
        "medians_ms": {
            "jobs_few": round(median(walls(jobs_few)), 1),
            "jobs_many": round(median(walls(jobs_many)), 1),
            "approvals_few": round(median(walls(approvals_few)), 1),
            "approvals_many": round(median(walls(approvals_many)), 1),
        },
        "cpu_medians_ms": {
            "jobs_few": round(median(cpus(jobs_few)), 1),
            "jobs_many": round(median(cpus(jobs_many)), 1),
            "approvals_few": round(median(cpus(approvals_few)), 1),
            "approvals_many": round(median(cpus(approvals_many)), 1),
        },
        "listed_jobs": listed_jobs,
        "unanswered_tries": unanswered.tries,
    }


def comparisons(figures: dict[str, object]) -> list[Comparison]:
    medians, cpu = figures["medians_ms"], figures["cpu_medians_ms"]
    assert isinstance(medians, dict) and isinstance(cpu, dict)
    jobs, approvals = figures["listed_jobs"], figures["approvals"]
    loaded, idle = figures["loaded_rss_mb"], figures["idle_rss_mb"]
    assert isinstance(loaded, float) and isinstance(idle, float)
    few_jobs = f"the same with {figures['baseline_jobs']} jobs"
    few_approvals = f"the same with {figures['baseline_approvals']} open"
    return [
        Comparison(
            f"`codedesk jobs` with {jobs} jobs",
            medians["jobs_many"],
            "ms",
            few_jobs,
            medians["jobs_few"],
            target="< 1000 ms",
            met=medians["jobs_many"] < 1000,
        ),
        Comparison(
            f"`codedesk jobs` with {jobs} jobs, CPU time",
            cpu["jobs_many"],
            "ms",
            few_jobs,
            cpu["jobs_few"],
        ),
        Comparison(
            f"`codedesk approvals` with {approvals} open",
            medians["approvals_many"],
            "ms",
            few_approvals,
            medians["approvals_few"],
            target="< 1000 ms",
            met=medians["approvals_many"] < 1000,
        ),
        Comparison(
            f"`codedesk approvals` with {approvals} open, CPU time",
            cpu["approvals_many"],
            "ms",
            few_approvals,
            cpu["approvals_few"],
        ),
        Comparison(
            f"worker memory holding {approvals} approvals and {figures['queued']} queued jobs",
            loaded,
            "MB",
            "the same worker idle",
            idle,
            target="< 300 MB",
            met=loaded < 300,
        ),
    ]


def main() -> int:
    args = arguments(
        __doc__, "jobs that finish before the load (default 800)", more_arguments, jobs=800
    )
    with tempfile.TemporaryDirectory(prefix="codedesk-bench-") as tmp:
        root = Path(tmp)
        isolate(root)
        figures = asyncio.run(load(root, args))
    report("load", figures, comparisons(figures), args)
    problems = figures["problems"]
    assert isinstance(problems, list)
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 0 if not problems else 1


if __name__ == "__main__":
    exit_with(main)
