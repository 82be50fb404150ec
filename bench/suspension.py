"""Bench: what a suspended agent holds and costs (issue 28), beside the live agent's, in one run.

Usage: python bench/suspension.py [--rounds N] [--json] [--out FILE]

It starts its own headless Temporal dev server, a real `codedesk worker` process (one desk slot,
a live window of 2 s, agents in bubblewrap), a bare origin, a temporary home, and the scripted
fake of the Anthropic API (tests/real_agents/fake_anthropic.py) that the real Claude Code CLI
(the `claude` preset's proven version, installed into the agent cache) talks to. Each of N
rounds (default 3) runs, in this order:

- the CLI's own start-up: `claude -p --output-format stream-json --verbose -- <task>` run
  directly (no sandbox, no codedesk, a fresh config folder), timed from its spawn to the fake's
  first conversation request (the one that offers tools);
- a suspending job: its agent writes a file, waits in a bash call for a gate file (the bench
  counts its processes and reads the desk's state meanwhile: the live baseline), commits,
  then runs `git push origin HEAD:main`, held; nobody answers within the live window, so the
  CLI defers it and the job suspends. The bench counts the job's processes again (those
  whose environment holds CODEDESK_WORKTREE=<its worktree>, from /proc) and reads
  `DeskClient.desk_state()` (`running` against `suspended`), then approves the call
  (`ApprovalsClient.answer`, Decision.APPROVE) and times until the fake receives the deferred
  call's tool result from the resumed session. It also times the job's own first start, from
  `start_job` to the fake's first conversation request (desk, worktree, sandbox, CLI);
- a resumed crash: a job whose agent waits in the gate call when the bench SIGKILLs the
  worker; once no process of the job is left the gate opens and a new worker starts; the
  next attempt resumes the CLI's session (`claude -p --resume`);
- a restarted crash: the same, but the bench removes the CLI's session files from the job's
  home before the new worker starts, so the attempt starts over with the task.

Figures (medians over the rounds, each against a baseline of the same run): the processes and
desk slots a suspended job holds, against the live job's; the time from the approving answer
to the deferred call's result reaching the model, against the CLI's start-up; and the bytes a
resumed attempt sends to the model after the crash (`len(json.dumps(body))` of every request
the fake received from the kill to the job's report, side requests included), against the
restarted attempt's. It exits non-zero unless every job integrated with the expected counts
(one suspension; one resumed attempt; one started-over attempt). Without bubblewrap, node or
npm, or where the CLI cannot be installed, it says why and exits 0 without figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The fake model API, the CLI's installer and the real-agent worker's environment are the test
# suite's: the repository's root must be importable (the bench may run from anywhere).
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

import pytest  # noqa: E402  (release_cli skips through pytest when it cannot install)
from common import (  # noqa: E402
    Comparison,
    exit_with,
    isolate,
    make_origin,
    median,
    report,
    start_server,
)

from desk.agents.homes import CLI_HOMES  # noqa: E402
from desk.agents.presets import AGENT_PRESETS, preset_command  # noqa: E402
from desk.config.settings import DeskSettings, load_settings  # noqa: E402
from desk.holds.approvals import Decision, Principal  # noqa: E402
from desk.payloads.jobs import JobOutcome, JobReport  # noqa: E402
from desk.records.job_states import JobPhase  # noqa: E402
from surfaces.clients.approval_client import ApprovalsClient, ApprovalState  # noqa: E402
from surfaces.clients.desk_client import DeskClient  # noqa: E402
from tests.helpers.agent_pids import job_processes  # noqa: E402
from tests.helpers.agent_runs import CRASH_HEARTBEAT_TIMEOUT  # noqa: E402
from tests.helpers.cli_helpers import CODEDESK  # noqa: E402
from tests.real_agents.fake_anthropic import (  # noqa: E402
    FakeAnthropic,
    Say,
    Step,
    ToolCall,
    serving,
)
from tests.real_agents.install import agent_cache, release_cli  # noqa: E402
from workers.temporal.client import connect  # noqa: E402

REPO = "bench/suspension"
TASK = "add a notes file, commit it and push it"
PUSH = "git push origin HEAD:main"
LIVE_WAIT = "2s"
STICKY = "2s"
"""The worker's sticky timeout (the crash suite's): how soon a SIGKILLed worker's workflows go on
with the next worker. At the host's 10 s the new worker's start waited that long for the desk's
task (its limits, told as it starts) and the job as long again for its own, about 20 s of each
crash round. The agent heartbeat timeout is the crash tests' (tests/helpers/agent_runs), set
where the bench starts its jobs, since a job takes it from whoever starts it."""
PATIENCE = float(os.environ.get("CODEDESK_TEST_PATIENCE", "120"))
SAMPLES = 5


def bash(command: str) -> ToolCall:
    return ToolCall("Bash", {"command": command, "description": "run a command"})


def scripts(gate: Path) -> tuple[list[Step], list[Step]]:
    """The suspending job's script and the crash jobs' (the same, without the push)."""
    wait = bash(f"while [ ! -e {gate} ]; do sleep 0.1; done")  # the agent works, live
    # A line of its own each time: a file main already has as it is commits nothing.
    write = bash("date +%s%N >> NOTES.md")
    commit = bash("git add -A && git commit -q -m 'Add notes'")
    suspending: list[Step] = [write, wait, commit, bash(PUSH), Say("Committed; pushed.")]
    crashing: list[Step] = [write, wait, commit, Say("I added NOTES.md and committed it.")]
    return suspending, crashing


PUSH_TURN = 3
"""The push's place in the suspending script: its tool use id is `toolu_0003`."""


@dataclass
class StampedFake(FakeAnthropic):
    """The fake, also noting when (CLOCK_MONOTONIC) each request arrived."""

    stamps: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    stamp_lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        with self.stamp_lock:
            self.stamps.append((time.monotonic(), body))
        return super().answer(body)

    def since(self, index: int) -> list[tuple[float, dict[str, Any]]]:
        with self.stamp_lock:
            return list(self.stamps[index:])

    def mark(self) -> int:
        with self.stamp_lock:
            return len(self.stamps)


def turns(body: dict[str, Any]) -> int:
    return sum(1 for message in body.get("messages", []) if message.get("role") == "assistant")


def has_result(body: dict[str, Any], tool_use_id: str) -> bool:
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_result" and block.get("tool_use_id") == tool_use_id:
                    return True
    return False


async def until(probe: Any, what: str, timeout: float = PATIENCE) -> Any:
    """Poll `probe` (sync or async) until it returns something true; its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if asyncio.iscoroutine(value):
            value = await value
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"waited {timeout:g} s for {what}")
        await asyncio.sleep(0.05)


class Worker:
    """A real `codedesk worker` process in its own session, logging to a file."""

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self.env, self.folder, self.count = env, folder, 0
        self.process: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        self.count += 1
        log_path = self.folder / f"worker-{self.count}.log"
        with log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [CODEDESK, "worker"],
                env=self.env,
                cwd=self.folder,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        process = self.process
        await until(
            lambda: b"Worker polling" in log_path.read_bytes() or process.poll() is not None,
            f"the worker to poll ({log_path})",
        )
        if process.poll() is not None:
            raise RuntimeError(f"the worker ended: {log_path.read_text()[-2000:]}")

    async def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            await asyncio.to_thread(self.process.wait, 10)
        self.process = None


def worker_env(settings: DeskSettings, fake: FakeAnthropic, folder: Path) -> dict[str, str]:
    """tests/crash/agents' real-Claude worker environment (bubblewrap, the proven CLI, its
    heartbeat timeout), with the bench's live window, one slot and sticky timeout."""
    from tests.helpers.agent_runs.session_resume import worker_env as real_worker_env

    env = real_worker_env(settings, fake, folder)
    env.update(
        CODEDESK_HOLD_LIVE_WAIT=LIVE_WAIT,
        CODEDESK_MAX_WORKERS="1",
        CODEDESK_STICKY_TIMEOUT=STICKY,
        CODEDESK_CONFIG=os.environ["CODEDESK_CONFIG"],
    )
    return env


async def cli_start_ms(claude: Path, fake: StampedFake, steps: list[Step], root: Path) -> float:
    """The bare CLI's spawn to its first conversation request, in ms (no sandbox, no codedesk)."""
    fake.steps = steps
    folder = Path(tempfile.mkdtemp(prefix="cli-", dir=root))
    (folder / "home").mkdir()
    (folder / "work").mkdir()
    env = {
        "PATH": f"{claude.parent}:{os.environ['PATH']}",
        "HOME": str(folder / "home"),
        "CLAUDE_CONFIG_DIR": str(folder / "config"),
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    argv = [str(claude), "-p", "--output-format", "stream-json", "--verbose", "--", "say hi"]
    mark = fake.mark()
    started = time.monotonic()
    child = await asyncio.create_subprocess_exec(
        *argv,
        cwd=folder / "work",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        first = await until(
            lambda: next((at for at, body in fake.since(mark) if body.get("tools")), 0.0),
            "the bare CLI's first request",
        )
    finally:
        await asyncio.wait_for(child.wait(), PATIENCE)
    shutil.rmtree(folder, ignore_errors=True)
    return (first - started) * 1000


@dataclass
class Bench:
    root: Path
    settings: DeskSettings
    desk: DeskClient
    approvals: ApprovalsClient
    fake: StampedFake
    worker: Worker
    gate: Path
    problems: list[str] = field(default_factory=list)

    def expect(self, ok: bool, problem: str) -> None:
        if not ok:
            self.problems.append(problem)

    async def start(self, steps: list[Step]) -> tuple[int, int, float]:
        """A new job on `steps` with the gate shut: (its number, the fake's mark, its start)."""
        self.fake.steps = steps
        self.gate.unlink(missing_ok=True)
        mark = self.fake.mark()
        started = time.monotonic()
        number = await self.desk.start_job(REPO, TASK, agent_command=preset_command("claude"))
        return number, mark, started

    async def waiting_at_gate(self, mark: int) -> None:
        """Until the model has asked for the gate call and its bash runs a moment."""
        await until(
            lambda: any(
                body.get("tools") and turns(body) == 1 for _, body in self.fake.since(mark)
            ),
            "the agent's gate call",
        )
        await asyncio.sleep(1.0)

    async def worktree(self, number: int) -> str:
        status = await until(lambda: self._status(number), "the job's worktree", timeout=PATIENCE)
        return str(status.worktree)

    async def _status(self, number: int) -> Any:
        _, status = await self.desk.status(number)
        return status if status.worktree else None

    async def sample(self, number: int, worktree: str) -> dict[str, Any]:
        """The job's processes (the most seen in SAMPLES looks 0.2 s apart) and the desk's slots."""
        counts = []
        for _ in range(SAMPLES):
            counts.append(len(job_processes(worktree)))
            await asyncio.sleep(0.2)
        state = await self.desk.desk_state()
        if state is None:
            raise RuntimeError("the desk did not answer its state")
        return {
            "processes": max(counts),
            "process_samples": counts,
            "slots": int(number in state.running),
            "suspended": number in state.suspended,
        }

    async def suspension_round(self, steps: list[Step]) -> dict[str, Any]:
        number, mark, started = await self.start(steps)
        first = await until(
            lambda: next((at for at, body in self.fake.since(mark) if body.get("tools")), 0.0),
            "the job's first request",
        )
        worktree = await self.worktree(number)
        await self.waiting_at_gate(mark)
        live = await self.sample(number, worktree)
        self.gate.touch()
        held = await until(lambda: self._held(number), "the held push's approval")
        await until(lambda: self._phase(number, JobPhase.SUSPENDED), "the job to suspend")
        suspended = await self.sample(number, worktree)
        owner = Principal(id=self.settings.owner)
        after = self.fake.mark()
        answered = time.monotonic()
        result, _ = await self.approvals.answer(held.approval_id, Decision.APPROVE, owner)
        self.expect(result.counted, f"job {number}: the approving answer did not count")
        push_id = f"toolu_{PUSH_TURN:04d}"
        ran = await until(
            lambda: next(
                (at for at, body in self.fake.since(after) if has_result(body, push_id)), 0.0
            ),
            "the deferred call's result at the model",
        )
        done = await self.report(number)
        self.expect(done.agent_suspended == 1, f"job {number} suspended {done.agent_suspended}x")
        return {
            "job": number,
            "live": live,
            "suspended": suspended,
            "job_start_ms": round((first - started) * 1000, 1),
            "approve_to_result_ms": round((ran - answered) * 1000, 1),
        }

    async def crash_round(self, steps: list[Step], start_over: bool) -> dict[str, Any]:
        from tests.helpers.agent_runs.session_resume import heartbeat_session

        number, mark, _ = await self.start(steps)
        worktree = await self.worktree(number)
        await self.waiting_at_gate(mark)
        await until(lambda: heartbeat_session(self.desk.client, number), "the session id")
        await self.worker.kill()
        await until(lambda: not job_processes(worktree), "the killed worker's agent to end", 30)
        if start_over:
            sessions = self.settings.home / "jobs" / str(number)
            pattern = f"*/{CLI_HOMES['claude'].folder}/projects/*/*.jsonl"
            removed = list(sessions.glob(pattern))
            for path in removed:
                path.unlink()
            self.expect(bool(removed), f"job {number}: no session file to remove")
        crashed = self.fake.mark()
        self.gate.touch()
        await self.worker.start()
        done = await self.report(number)
        counts = (done.agent_resumed, done.agent_started_over)
        wanted = (0, 1) if start_over else (1, 0)
        self.expect(counts == wanted, f"job {number}: resumed, started over {counts}, not {wanted}")
        sent = [body for _, body in self.fake.since(crashed)]
        return {
            "job": number,
            "requests": len(sent),
            "conversation_requests": sum(1 for body in sent if body.get("tools")),
            "bytes": sum(len(json.dumps(body)) for body in sent),
            "conversation_bytes": sum(len(json.dumps(body)) for body in sent if body.get("tools")),
        }

    async def _held(self, number: int) -> ApprovalState | None:
        for state in await self.approvals.open_approvals():
            request = state.request
            if request.scope == f"job-{number}" and request.tool == "Bash":
                if PUSH in json.dumps(request.input):
                    return state
        return None

    async def _phase(self, number: int, phase: JobPhase) -> bool:
        _, status = await self.desk.status(number)
        return bool(status.phase == phase)

    async def report(self, number: int) -> JobReport:
        done = await asyncio.wait_for(self.desk.wait(number), 3 * PATIENCE)
        if done.outcome != JobOutcome.INTEGRATED:
            told = self.fake.tool_results()[-4:]
            self.problems.append(
                f"job {number} ended {done.outcome.value} ({done.reason}); the last tool "
                f"results: {told}; the log's end: {log_tail(done.log_path)}"
            )
        return done


def log_tail(path: str) -> str:
    try:
        return Path(path).read_text(errors="replace")[-1500:]
    except OSError as error:
        return str(error)


def claude_cli() -> Path | str:
    """The proven Claude Code, or why it cannot run here."""
    for tool in ("bwrap", "node", "npm"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    try:
        return release_cli("claude")
    except pytest.skip.Exception as skipped:
        return str(skipped)


def claude_bench(name: str, doc: str | None, rounds: int) -> tuple[argparse.Namespace, Path] | None:
    """The arguments of a bench that runs the proven Claude Code (`--rounds`, default `rounds`;
    `--json`; `--out FILE`) and that CLI; None, the reason printed, when it cannot run here."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=rounds, help=f"rounds ({rounds})")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON to this file")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    claude = claude_cli()
    if isinstance(claude, Path):
        return args, claude
    why = f"bench {name}: skipped: {claude}"
    print(why, file=sys.stderr)
    if args.json:
        print(json.dumps({"bench": name, "skipped": why}))
    return None


async def run(rounds: int, claude: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="codedesk-bench-") as tmp:
        root = Path(tmp)
        isolate(root)
        gates = root / "gates"
        gates.mkdir()
        suspending, crashing = scripts(gates / "open")
        home = root / "home"
        server = await start_server(home)
        worker: Worker | None = None
        try:
            settings = load_settings(
                home=home,
                shelf=home / "shelf",
                temporal_address=server.address,
                namespace="default",
                task_queue=f"bench-{uuid.uuid4().hex[:8]}",
                sandbox_read_paths=[str(gates), str(agent_cache())],
                # A job's agent heartbeat timeout is its requester's: the bench's, here.
                heartbeat_timeout=CRASH_HEARTBEAT_TIMEOUT,
            )
            with serving(StampedFake(steps=suspending)) as fake:
                assert isinstance(fake, StampedFake)
                worker = Worker(worker_env(settings, fake, root), root)
                await worker.start()
                client = await connect(settings)
                desk = DeskClient(client, settings)
                await desk.add_repo(REPO, str(make_origin(root / "origin")))
                bench = Bench(
                    root, settings, desk, ApprovalsClient(client), fake, worker, gates / "open"
                )
                rows = []
                for _ in range(rounds):
                    row: dict[str, Any] = {
                        "cli_start_ms": round(
                            await cli_start_ms(claude, fake, [Say("hi")], root), 1
                        )
                    }
                    row["suspension"] = await bench.suspension_round(suspending)
                    row["resumed"] = await bench.crash_round(crashing, start_over=False)
                    row["restarted"] = await bench.crash_round(crashing, start_over=True)
                    rows.append(row)
        finally:
            if worker is not None:
                await worker.kill()
            server.stop()
    return summary(rows, bench.problems)


def summary(rows: list[dict[str, Any]], problems: list[str]) -> dict[str, Any]:
    def over(pick: Any) -> float:
        return round(median([float(pick(row)) for row in rows]), 1)

    return {
        "rounds": len(rows),
        "jobs": 3 * len(rows),
        "ok": not problems,
        "problems": problems,
        "claude_version": AGENT_PRESETS["claude"].proven_version,
        "live_processes": over(lambda row: row["suspension"]["live"]["processes"]),
        "suspended_processes": over(lambda row: row["suspension"]["suspended"]["processes"]),
        "live_slots": over(lambda row: row["suspension"]["live"]["slots"]),
        "suspended_slots": over(lambda row: row["suspension"]["suspended"]["slots"]),
        "listed_suspended": all(row["suspension"]["suspended"]["suspended"] for row in rows),
        "approve_to_result_ms": over(lambda row: row["suspension"]["approve_to_result_ms"]),
        "cli_start_ms": over(lambda row: row["cli_start_ms"]),
        "job_start_ms": over(lambda row: row["suspension"]["job_start_ms"]),
        "resumed_bytes": over(lambda row: row["resumed"]["bytes"]),
        "restarted_bytes": over(lambda row: row["restarted"]["bytes"]),
        "resumed_requests": over(lambda row: row["resumed"]["requests"]),
        "restarted_requests": over(lambda row: row["restarted"]["requests"]),
        "runs": rows,
    }


def main() -> int:
    chosen = claude_bench("suspension", __doc__, rounds=3)
    if chosen is None:
        return 0
    args, claude = chosen
    figures = asyncio.run(run(args.rounds, claude))
    comparisons = [
        Comparison(
            "processes of a suspended job (its approval waiting)",
            figures["suspended_processes"],
            "processes",
            "the same job's agent working live",
            figures["live_processes"],
            "0",
            figures["suspended_processes"] == 0,
        ),
        Comparison(
            "desk slots a suspended job holds",
            figures["suspended_slots"],
            "slots",
            "the same job working live",
            figures["live_slots"],
            "0",
            figures["suspended_slots"] == 0 and figures["listed_suspended"],
        ),
        Comparison(
            "approving answer to the deferred call's result at the model (median)",
            figures["approve_to_result_ms"],
            "ms",
            "a bare `claude -p` (no sandbox) from spawn to its first model request",
            figures["cli_start_ms"],
        ),
        Comparison(
            "the same (median)",
            figures["approve_to_result_ms"],
            "ms",
            "a job's first start, `start_job` to its agent's first model request",
            figures["job_start_ms"],
        ),
        Comparison(
            "bytes a resumed attempt sends the model after a SIGKILLed worker (median)",
            figures["resumed_bytes"],
            "bytes",
            "the same crash with the session files removed (the attempt starts over)",
            figures["restarted_bytes"],
        ),
    ]
    text = (
        f"{figures['rounds']} rounds, Claude Code {figures['claude_version']} in bubblewrap; "
        f"live: {figures['live_processes']:.0f} processes, suspended: "
        f"{figures['suspended_processes']:.0f}; after the crash the resumed attempt sent "
        f"{figures['resumed_requests']:.0f} requests, the restarted one "
        f"{figures['restarted_requests']:.0f}."
    )
    report("suspension", figures, comparisons, args, text)
    for problem in figures["problems"]:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    exit_with(main)
