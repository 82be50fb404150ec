"""Bench: what the hold hook costs a tool call, beside a bare process start and a bare Update.

Usage: python bench/hold_latency.py [--jobs N] [--json] [--out FILE]

In one run it starts its own headless Temporal dev server, an in-process worker, one job
whose agent waits while the bench plays the agent CLI, and a separate answering process (a
person's surface: the CLI or the chat bot is never the worker's process). N times each,
interleaved so that machine load falls on all alike:

- bare start: `python -c pass`, the same interpreter the hook runs on;
- harmless call: the hook command exactly as Claude Code runs it (`sh -c '<python> -I -S
  <codedesk>/surfaces/hook.py --format claude || exit 2'`, the call on stdin, the agent's
  environment);
- bare Update: from the answering process, a `hold` Update on the job that it answers at
  once (a round trip, no person);
- held call: a `git push` through the hook, approved from the answering process by the
  `answer` Update as soon as its approval is listed; the time runs from sending the answer to
  the hook's exit (the answer's own round trip, which also settles the `Approval` workflow,
  is printed beside it). Times cross processes on CLOCK_MONOTONIC.

It prints the p50 of each, the harmless call's overhead over the bare start (target: within
60 ms), the held call's ratio to the bare Update (target: within 1.3x), and how many of the
approvals the hold channel was watching before their answer (the rest waited for the job's own
answer); `--json` prints the figures as JSON, `--out FILE` also writes them. It exits non-zero
if any call was answered wrongly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import Comparison, arguments, exit_with, isolate, make_origin, report, running_desk
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from activities.agent.process.hook_settings import hook_command
from desk.config.settings import load_settings
from desk.holds.approvals import (
    CallSummary,
    Decision,
    HoldRequest,
    HoldVerdict,
    Principal,
    approval_id,
)
from desk.names import job_workflow_id
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from workers.temporal.client import connect
from workflows.job.coding_job import CodingJob

REPO = "bench/holds"
HARMLESS_TARGET_MS = 60.0
HELD_TARGET_RATIO = 1.3
STATUS = {"tool_name": "Bash", "tool_input": {"command": "git status && ls -la"}}

AGENT = """\
import json, os, sys, time
with open(sys.argv[1] + ".part", "w") as out:
    json.dump(dict(os.environ), out)
os.replace(sys.argv[1] + ".part", sys.argv[1])
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
"""
"""The bench agent: hands its environment to the bench (the file whole, by a rename), then waits
until told to stop."""


def now() -> float:
    """CLOCK_MONOTONIC in seconds: one clock for every process on the machine."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


async def process_ms(argv: list[str], given: bytes, env: dict[str, str] | None) -> float:
    started = now()
    child = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await child.communicate(given)
    elapsed = (now() - started) * 1000
    if child.returncode != 0 or out:
        raise RuntimeError(f"{argv[-1]!r} answered {child.returncode}: {out!r} {err!r}")
    return elapsed


class Surface:
    """The answering process: sends the bare Update or the approving one when told, and says
    when each was sent and when it returned (CLOCK_MONOTONIC)."""

    def __init__(self, child: asyncio.subprocess.Process) -> None:
        self.child = child

    @classmethod
    async def start(cls, address: str) -> Surface:
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--surface",
            address,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        surface = cls(child)
        if await surface._line() != "ready":
            raise RuntimeError("the answering process did not start")
        return surface

    async def send(self, order: dict[str, Any]) -> tuple[float, float, bool]:
        """(sent, returned, whether the answer counted) of one order."""
        assert self.child.stdin is not None
        self.child.stdin.write(json.dumps(order).encode() + b"\n")
        await self.child.stdin.drain()
        sent, returned, ok = json.loads(await self._line())
        return float(sent), float(returned), bool(ok)

    async def _line(self) -> str:
        assert self.child.stdout is not None
        line = await self.child.stdout.readline()
        if not line:
            raise RuntimeError(f"the answering process ended ({await self.child.wait()})")
        return line.decode().strip()

    async def stop(self) -> None:
        assert self.child.stdin is not None
        self.child.stdin.close()
        await self.child.wait()


async def serve_orders(address: str) -> None:
    """The answering process: one JSON order a line on stdin, one JSON reply a line."""
    settings = load_settings(temporal_address=address, namespace="default")
    client = await connect(settings)
    approvals = ApprovalsClient(client)
    owner = Principal(id=settings.owner)
    noop = HoldRequest(tool="Bash", summary=CallSummary(digest="0" * 64))
    print("ready", flush=True)
    while line := await asyncio.to_thread(sys.stdin.readline):
        order = json.loads(line)
        sent = now()
        if "job" in order:
            job = client.get_workflow_handle(job_workflow_id(order["job"]))
            answer = await job.execute_update(CodingJob.hold, noop)
            ok = answer.verdict == HoldVerdict.ALLOWED
        else:
            result, _ = await approvals.answer(order["approve"], Decision.APPROVE, owner)
            ok = result.counted
        print(json.dumps([sent, now(), ok]), flush=True)


async def watched_in_time(client: Client, ident: str) -> bool:
    """Whether the hold channel watched the approval before the answer, and learned the answer
    in the workflow task that recorded it (else the hook waited for the job's own answer)."""
    names: dict[int, str] = {}
    done: dict[str, int] = {}
    task = 0
    async for event in client.get_workflow_handle(ident).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
            task = event.event_id
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
            attributes = event.workflow_execution_update_accepted_event_attributes
            names[event.event_id] = attributes.accepted_request.input.name
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
            accepted = event.workflow_execution_update_completed_event_attributes.accepted_event_id
            done[names[accepted]] = task
    return "outcome" in done and done["outcome"] == done.get("answer")


async def held_call(
    command: str, env: dict[str, str], approvals: ApprovalsClient, surface: Surface, held: Any
) -> dict[str, float]:
    """Start the hook on a held call, have the surface approve it once open; the times (ms)
    from sending the answer to its return, to the hook's answer line, to the hook's exit."""
    hook = await asyncio.create_subprocess_exec(
        "sh",
        "-c",
        command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    assert hook.stdin is not None and hook.stdout is not None
    ident, call = held
    hook.stdin.write(call)
    hook.stdin.close()
    while ident not in {state.approval_id for state in await approvals.open_approvals()}:
        await asyncio.sleep(0.02)
    answering = asyncio.create_task(surface.send({"approve": ident}))
    out = await hook.stdout.readline()
    line = now()
    out += await hook.stdout.read()
    await hook.wait()
    exited = now()
    sent, returned, counted = await answering
    decision = json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else ""
    if not counted or hook.returncode != 0 or decision != "allow":
        raise RuntimeError(f"the held call was not approved: {hook.returncode} {out!r}")
    return {
        "held": (exited - sent) * 1000,
        "held_line": (line - sent) * 1000,
        "answer_update": (returned - sent) * 1000,
    }


async def run(samples: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="codedesk-bench-") as tmp:
        root = Path(tmp)
        isolate(root)
        # The bench plays the agent CLI on the host, so its agent (which only hands over its
        # environment) runs unconfined: a sandboxed one could not write where the bench reads.
        os.environ["CODEDESK_SANDBOX"] = "none"
        origin = make_origin(root / "origin")
        agent, env_file, stop = root / "agent.py", root / "agent-env.json", root / "stop"
        agent.write_text(AGENT)
        command = f"{sys.executable} {agent} {env_file} {stop}"
        async with running_desk(root / "home", command) as (client, settings):
            desk = DeskClient(client, settings)
            await desk.add_repo(REPO, str(origin))
            number = await desk.start_job(REPO, "hold latency")
            while not env_file.exists():
                await asyncio.sleep(0.05)
            env = json.loads(env_file.read_text())
            hook = hook_command()
            figures: dict[str, list[float]] = {
                "bare_start": [],
                "harmless": [],
                "bare_update": [],
                "held": [],
                "held_line": [],
                "answer_update": [],
            }
            approvals = ApprovalsClient(client)
            surface = await Surface.start(settings.temporal_address)
            seen = 0
            try:
                for index in range(samples):
                    bare = [sys.executable, "-c", "pass"]
                    figures["bare_start"].append(await process_ms(bare, b"", None))
                    harmless = json.dumps(STATUS).encode()
                    figures["harmless"].append(await process_ms(["sh", "-c", hook], harmless, env))
                    sent, returned, allowed = await surface.send({"job": number})
                    if not allowed:
                        raise RuntimeError("the bare Update was not answered 'allowed'")
                    figures["bare_update"].append((returned - sent) * 1000)
                    # Not a plain push (codedesk would carry that out itself, and never let
                    # it run): this times an approval's round trip to a call that runs.
                    push = {"command": f"git push --no-verify origin HEAD:bench-{index}"}
                    call = json.dumps({"tool_name": "Bash", "tool_input": push}).encode()
                    ident = approval_id(f"job-{number}", "Bash", push)
                    times = await held_call(hook, env, approvals, surface, (ident, call))
                    for name, ms in times.items():
                        figures[name].append(ms)
                    seen += await watched_in_time(client, ident)
            finally:
                await surface.stop()
            stop.touch()
            report = await desk.wait(number)
    return summary(figures, samples, report.tool_calls, seen)


def p50(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def summary(
    figures: dict[str, list[float]], samples: int, tool_calls: int, watched: int
) -> dict[str, Any]:
    over = p50(figures["harmless"]) - p50(figures["bare_start"])
    ratio = p50(figures["held"]) / p50(figures["bare_update"])
    problems = []
    if tool_calls != 2 * samples:
        problems.append(f"the job counted {tool_calls} tool calls, not {2 * samples}")
    return {
        "jobs": samples,
        "ok": not problems,
        "problems": problems,
        "bare_start_p50_ms": p50(figures["bare_start"]),
        "harmless_hook_p50_ms": p50(figures["harmless"]),
        "harmless_over_bare_ms": round(over, 1),
        "harmless_target_ms": HARMLESS_TARGET_MS,
        "harmless_within_target": over <= HARMLESS_TARGET_MS,
        "bare_update_p50_ms": p50(figures["bare_update"]),
        "answer_update_p50_ms": p50(figures["answer_update"]),
        "held_over_answer_ratio": round(p50(figures["held"]) / p50(figures["answer_update"]), 2),
        "held_unblock_p50_ms": p50(figures["held"]),
        "held_answer_line_p50_ms": p50(figures["held_line"]),
        "held_watched": watched,
        "held_over_update_ratio": round(ratio, 2),
        "held_target_ratio": HELD_TARGET_RATIO,
        "held_within_target": ratio <= HELD_TARGET_RATIO,
        "tool_calls_counted": tool_calls,
        "runs_ms": {name: [round(ms, 1) for ms in runs] for name, runs in figures.items()},
    }


def main() -> int:
    def surface_option(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--surface", metavar="ADDRESS", help=argparse.SUPPRESS)

    args = arguments(__doc__, "calls of each kind (default 20)", surface_option)
    if args.surface:  # the bench's own answering process
        asyncio.run(serve_orders(args.surface))
        return 0
    figures = asyncio.run(run(args.jobs))
    comparisons = [
        Comparison(
            "harmless call through the hook (p50)",
            figures["harmless_hook_p50_ms"],
            "ms",
            "a bare `python -c pass`",
            figures["bare_start_p50_ms"],
            f"<= baseline + {HARMLESS_TARGET_MS:.0f} ms",
            figures["harmless_within_target"],
        ),
        Comparison(
            "held call approved by Update, until the hook exits (p50)",
            figures["held_unblock_p50_ms"],
            "ms",
            "a no-op Update on the job",
            figures["bare_update_p50_ms"],
            f"<= {HELD_TARGET_RATIO}x baseline",
            figures["held_within_target"],
        ),
        Comparison(
            "the same held call (p50)",
            figures["held_unblock_p50_ms"],
            "ms",
            "the approving Update's own round trip",
            figures["answer_update_p50_ms"],
        ),
    ]
    text = (
        f"{args.jobs} calls of each kind; the hold channel watched {figures['held_watched']} of "
        f"the {args.jobs} approvals before their answer; the hook had its answer "
        f"{figures['held_answer_line_p50_ms']:.0f} ms (p50) after the answer was sent."
    )
    report("hold_latency", figures, comparisons, args, text)
    for problem in figures["problems"]:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    exit_with(main)
