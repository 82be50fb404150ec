"""Bench: what the hold hook costs a tool call, beside a bare process start and a bare Update.

Usage: python bench/hold_latency.py [--jobs N] [--json]

In one run it starts its own headless Temporal dev server, an in-process worker and one job
whose agent waits while the bench plays the agent CLI, N times each (interleaved, so machine
load falls on both sides alike):

- bare start: `python -c pass`, the same interpreter the hook runs on;
- harmless call: the hook command exactly as Claude Code runs it (`sh -c '<python> -I -m
  surfaces.hook --format claude || exit 2'`, the call on stdin, the agent's environment);
- bare Update: a `hold` Update on the job that it answers at once (a round trip, no person);
- held call: a `git push` through the hook, approved by the `answer` Update as soon as its
  approval opens; the time runs from sending the answer to the hook's exit (the answer's own
  round trip, which also settles the `Approval` workflow, is printed beside it).

It prints the p50 of each, the harmless call's overhead over the bare start (target: within
60 ms) and the held call's ratio to the bare Update (target: within 1.3x); `--json` prints the
figures as JSON, `--out FILE` also writes them. It exits non-zero if any call was answered
wrongly.
"""

from __future__ import annotations

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

from activities.hook_settings import hook_command
from desk.approvals import CallSummary, Decision, HoldRequest, Principal, approval_id
from surfaces.approvals_client import ApprovalsClient
from surfaces.desk_client import DeskClient
from workflows.coding_job import CodingJob

REPO = "bench/holds"
HARMLESS_TARGET_MS = 60.0
HELD_TARGET_RATIO = 1.3
STATUS = {"tool_name": "Bash", "tool_input": {"command": "git status && ls -la"}}

AGENT = """\
import json, os, sys, time
with open(sys.argv[1], "w") as out:
    json.dump(dict(os.environ), out)
while not os.path.exists(sys.argv[2]):
    time.sleep(0.05)
"""
"""The bench agent: hands its environment to the bench, then waits until told to stop."""


async def process_ms(argv: list[str], given: bytes, env: dict[str, str] | None) -> float:
    started = time.perf_counter()
    child = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await child.communicate(given)
    elapsed = (time.perf_counter() - started) * 1000
    if child.returncode != 0 or out:
        raise RuntimeError(f"{argv[-1]!r} answered {child.returncode}: {out!r} {err!r}")
    return elapsed


async def held_ms(
    command: str, env: dict[str, str], approvals: ApprovalsClient, owner: Principal, held: Any
) -> tuple[float, float]:
    """Start the hook on a held call, approve it once open; (hook unblocked, answer Update)."""
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
    started = time.perf_counter()
    result, _ = await approvals.answer(ident, Decision.APPROVE, owner)
    answered = time.perf_counter()
    out = await hook.stdout.read()
    await hook.wait()
    unblocked = time.perf_counter()
    decision = json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else ""
    if not result.counted or hook.returncode != 0 or decision != "allow":
        raise RuntimeError(f"the held call was not approved: {result} {hook.returncode} {out!r}")
    return (unblocked - started) * 1000, (answered - started) * 1000


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
            await asyncio.sleep(0.2)  # the environment file is written whole by now
            env = json.loads(env_file.read_text())
            hook = hook_command()
            figures: dict[str, list[float]] = {
                "bare_start": [],
                "harmless": [],
                "bare_update": [],
                "held": [],
                "answer_update": [],
            }
            job = desk.job(number)
            noop = HoldRequest(tool="Bash", summary=CallSummary(digest="0" * 64))
            approvals = ApprovalsClient(client)
            owner = Principal(id=settings.owner)
            for index in range(samples):
                bare = [sys.executable, "-c", "pass"]
                figures["bare_start"].append(await process_ms(bare, b"", None))
                harmless = json.dumps(STATUS).encode()
                figures["harmless"].append(await process_ms(["sh", "-c", hook], harmless, env))
                started = time.perf_counter()
                await job.execute_update(CodingJob.hold, noop)
                figures["bare_update"].append((time.perf_counter() - started) * 1000)
                push = {"command": f"git push origin HEAD:bench-{index}"}
                call = json.dumps({"tool_name": "Bash", "tool_input": push}).encode()
                ident = approval_id(f"job-{number}", "Bash", push)
                unblocked, answered = await held_ms(hook, env, approvals, owner, (ident, call))
                figures["held"].append(unblocked)
                figures["answer_update"].append(answered)
            stop.touch()
            report = await desk.wait(number)
    return summary(figures, samples, report.tool_calls)


def p50(values: list[float]) -> float:
    return round(statistics.median(values), 1)


def summary(figures: dict[str, list[float]], samples: int, tool_calls: int) -> dict[str, Any]:
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
        "held_over_update_ratio": round(ratio, 2),
        "held_target_ratio": HELD_TARGET_RATIO,
        "held_within_target": ratio <= HELD_TARGET_RATIO,
        "tool_calls_counted": tool_calls,
        "runs_ms": {name: [round(ms, 1) for ms in runs] for name, runs in figures.items()},
    }


def main() -> int:
    args = arguments(__doc__, "calls of each kind (default 20)")
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
    report("hold_latency", figures, comparisons, args, f"{args.jobs} calls of each kind.")
    for problem in figures["problems"]:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    exit_with(main)
