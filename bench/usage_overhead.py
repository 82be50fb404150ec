"""Bench: a job whose agent reports its usage 100 times against the same job reporting none.

Usage: python bench/usage_overhead.py [--jobs N]

In one run (its own dev server and in-process worker, bench/common.py), N rounds each start two
jobs one after another: "off", an agent that prints 100 lines, and "on", the same agent sending a
usage line on the hold channel after each (desk/usage/reported.py), so both sides meet the same
moments of the machine. It prints each side's median and p90, the difference of the medians
against the noise (the spread between the off side's median and p90), the history events of a
job of each side, and whether the on side's reports added up to the expected total.
"""

from __future__ import annotations

import asyncio
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import arguments, exit_with, isolate, make_origin, running_desk

from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient

REPO = "bench/usage"
STEPS = 100

AGENT = f"""\
import json, os, socket
on = os.environ["CODEDESK_TASK"] == "on"
for step in range({STEPS}):
    print(f"step {{step}}", flush=True)
    if on:
        line = {{"kind": "usage", "job": int(os.environ["CODEDESK_JOB"]),
                "input_tokens": 10, "output_tokens": 1, "cost": "0.001"}}
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as channel:
            channel.connect(os.environ["CODEDESK_HOLD_SOCKET"])
            channel.sendall(json.dumps(line).encode() + b"\\n")
"""
AGENT_COMMAND = f"{shlex.quote(sys.executable)} -c {shlex.quote(AGENT)}"


async def timed(desk: DeskClient, side: str) -> tuple[float, int, bool]:
    """One job's wall time (ms), its history's events, and whether its usage is as expected."""
    start = time.perf_counter()
    number = await desk.start_job(REPO, side)
    report = await desk.wait(number)
    took = (time.perf_counter() - start) * 1000
    events = len([event async for event in desk.job(number).fetch_history_events()])
    used = report.usage
    expected = used is not None and used.input_tokens == 10 * STEPS if side == "on" else True
    return took, events, report.outcome == JobOutcome.NOTHING and expected


async def run(jobs: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="codedesk-bench-") as tmp:
        root = Path(tmp)
        isolate(root)
        origin = make_origin(root)
        async with running_desk(root / "home", AGENT_COMMAND) as (client, settings):
            desk = DeskClient(client, settings)
            await desk.add_repo(REPO, str(origin))
            times: dict[str, list[float]] = {"off": [], "on": []}
            events: dict[str, int] = {}
            ok = True
            for _ in range(jobs):
                for side in ("off", "on"):
                    took, count, fine = await timed(desk, side)
                    times[side].append(took)
                    events[side] = count
                    ok = ok and fine
    figures: dict[str, object] = {"jobs": jobs, "steps": STEPS, "ok": ok}
    for side, values in times.items():
        figures[f"{side}_median_ms"] = statistics.median(values)
        figures[f"{side}_p90_ms"] = statistics.quantiles(values, n=10)[-1] if jobs > 1 else 0.0
        figures[f"{side}_events"] = events[side]
    return figures


def main() -> int:
    args = arguments(__doc__, "rounds of one job on each side (default 20)")
    figures = asyncio.run(run(args.jobs))
    off, on = float(str(figures["off_median_ms"])), float(str(figures["on_median_ms"]))
    noise = float(str(figures["off_p90_ms"])) - off
    print(
        f"{args.jobs} rounds, {STEPS} steps: usage off median {off:.0f} ms, on median {on:.0f} ms"
        f" (difference {on - off:+.0f} ms; noise, off p90 - median: {noise:.0f} ms); history"
        f" events off {figures['off_events']}, on {figures['on_events']}; totals right:"
        f" {figures['ok']}"
    )
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    exit_with(main)
