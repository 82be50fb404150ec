"""Bench: how soon a message sent with `say` reaches the model, against Claude Code's own delay.

Usage: python bench/conversation.py [--rounds N] [--json] [--out FILE]

It starts its own headless Temporal dev server, a real `codedesk worker` process, a bare origin,
a temporary home, and the scripted fake of the Anthropic API (tests/real_agents/fake_anthropic.py)
that the real Claude Code CLI (the `claude` preset's proven version, installed into the agent
cache) talks to. The model's first step is a bash call that waits for a gate file; a message the
CLI gets while a tool runs goes into the model's next request, after the call's result. N rounds
(default 5) run with the job's agent unconfined, then N with it in bubblewrap (a worker started
with each sandbox), each round interleaving:

- the CLI's own delay (the baseline): `claude -p --input-format stream-json ...` run directly
  (no sandbox, no codedesk, a fresh config folder), its task written on its standard input;
  once its gate call runs, the bench writes the message on the CLI's input and opens the gate
  at once, and times until the fake receives a request whose conversation holds the message;
- codedesk's path: a `claude` preset job with the same script; once its gate call runs, the
  bench sends the message with `DeskClient.say` (which answers once the agent's input has it),
  opens the gate when `say` returns, and times until the fake receives a request holding the
  message (from `say` returning, and from `say` being called).

Figures (medians): with the agent unconfined, from `say` returning to the model's request
holding the message against the CLI's own delay from the write to that request (the target:
within 1.3x), and from `say` called against the same; with the agent in bubblewrap, from `say`
returning against that round's baseline (no target: the sandbox's own cost is in it, its bash
call and its model request through the egress proxy). It exits non-zero unless every message
reached the model in the request after the gate call and every `say` answered that the running
agent had it. Without bubblewrap, node or npm, or where the CLI cannot be installed, it says why
and exits 0 without figures.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The fake model API, the CLI's installer and the real-agent worker's environment are the test
# suite's: the repository's root must be importable (the bench may run from anywhere).
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from bare_resume import bare_env  # noqa: E402
from common import Comparison, exit_with, isolate, make_origin, median, report, start_server  # noqa: E402
from suspension import PATIENCE, StampedFake, Worker, claude_bench, until, worker_env  # noqa: E402

from desk.agents.presets import AGENT_PRESETS, preset_command  # noqa: E402
from desk.config.settings import DeskSettings, load_settings  # noqa: E402
from desk.payloads.message_payloads import MessageDelivery  # noqa: E402
from surfaces.clients.desk_client import DeskClient  # noqa: E402
from tests.real_agents.fake_anthropic import IfTold, Say, Step, ToolCall, serving, told  # noqa: E402
from tests.real_agents.install import agent_cache  # noqa: E402
from workers.temporal.client import connect  # noqa: E402

REPO = "bench/conversation"
TASK = "wait for the gate, then answer"
TARGET = 1.3


def script(gate: Path, message: str) -> list[Step]:
    """The model waits in a bash call for `gate`, then answers whether it read `message`."""
    wait = ToolCall(
        "Bash",
        {"command": f"while [ ! -e {gate} ]; do sleep 0.01; done", "description": "wait"},
    )
    return [wait, IfTold(message, Say("Read it."), Say("Nothing came."))]


def holding(fake: StampedFake, mark: int, message: str) -> float:
    """When the first request since `mark` whose conversation holds `message` came (0: none)."""
    return next((at for at, body in fake.since(mark) if told(body, message)), 0.0)


def waiting_in_call(fake: StampedFake, mark: int) -> bool:
    """Whether the model has asked for the gate call since `mark`."""
    return any(body.get("tools") for _, body in fake.since(mark))


@dataclass
class Bench:
    root: Path
    claude: Path
    settings: DeskSettings
    desk: DeskClient
    fake: StampedFake
    gates: Path
    problems: list[str] = field(default_factory=list)

    def expect(self, ok: bool, problem: str) -> None:
        if not ok:
            self.problems.append(problem)

    async def cli_round(self, message: str) -> float:
        """The bare CLI: the message written on its input as its gate opens, to the request
        that holds it, in ms."""
        gate = self.gates / f"cli-{uuid.uuid4().hex[:8]}"
        self.fake.steps = script(gate, message)
        folder = Path(tempfile.mkdtemp(prefix="cli-", dir=self.root))
        (folder / "work").mkdir()
        env = bare_env(self.claude, self.fake.url, folder, folder / "config")
        argv = [
            str(self.claude),
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            "Bash",
        ]
        mark = self.fake.mark()
        child = await asyncio.create_subprocess_exec(
            *argv,
            cwd=folder / "work",
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        assert child.stdin is not None
        try:
            child.stdin.write(_user(TASK))
            await child.stdin.drain()
            await until(lambda: waiting_in_call(self.fake, mark), "the bare CLI's gate call")
            await asyncio.sleep(0.5)  # its bash runs
            child.stdin.write(_user(message))
            await child.stdin.drain()
            written = time.monotonic()
            gate.touch()
            reached = await until(
                lambda: holding(self.fake, mark, message), "the message at the bare CLI's model"
            )
        finally:
            child.stdin.close()
            await asyncio.wait_for(child.wait(), PATIENCE)
            shutil.rmtree(folder, ignore_errors=True)
        self.expect(_next_request(self.fake, mark, message), "the bare CLI's model read it late")
        return (reached - written) * 1000

    async def job_round(self, message: str) -> tuple[float, float]:
        """A job: `say` while its gate call runs, the gate opened as `say` returns; to the
        request that holds the message, in ms from `say` returning and from `say` called."""
        gate = self.gates / f"job-{uuid.uuid4().hex[:8]}"
        self.fake.steps = script(gate, message)
        mark = self.fake.mark()
        number = await self.desk.start_job(REPO, TASK, agent_command=preset_command("claude"))
        await until(lambda: waiting_in_call(self.fake, mark), "the job's gate call")
        await asyncio.sleep(0.5)  # its bash runs
        called = time.monotonic()
        answer = await self.desk.say(number, message)
        returned = time.monotonic()
        gate.touch()
        reached = await until(
            lambda: holding(self.fake, mark, message), "the message at the job's model"
        )
        self.expect(
            answer.delivery == MessageDelivery.DELIVERED,
            f"job {number}: say answered {answer.delivery.value}",
        )
        self.expect(_next_request(self.fake, mark, message), f"job {number}: read it late")
        await asyncio.wait_for(self.desk.wait(number), 3 * PATIENCE)
        return (reached - returned) * 1000, (reached - called) * 1000


def _user(text: str) -> bytes:
    content = [{"type": "text", "text": text}]
    event = {"type": "user", "message": {"role": "user", "content": content}}
    return (json.dumps(event) + "\n").encode()


def _next_request(fake: StampedFake, mark: int, message: str) -> bool:
    """Whether the request right after the gate call (the model's second) held the message."""
    asked = [body for _, body in fake.since(mark) if body.get("tools")]
    return len(asked) >= 2 and told(asked[1], message) == 1


SANDBOXES = ("none", "bwrap")
"""The job's agent unconfined (codedesk's own path, against the bare CLI's), then in bubblewrap
(the same, with the sandbox's own cost: its tool call and its model request through the egress
proxy)."""


async def run(rounds: int, claude: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="codedesk-bench-") as tmp:
        root = Path(tmp)
        isolate(root)
        gates = root / "gates"
        gates.mkdir()
        home = root / "home"
        server = await start_server(home)
        worker: Worker | None = None
        rows: dict[str, list[dict[str, float]]] = {}
        try:
            settings = load_settings(
                home=home,
                shelf=home / "shelf",
                temporal_address=server.address,
                namespace="default",
                task_queue=f"bench-{uuid.uuid4().hex[:8]}",
                sandbox_read_paths=[str(gates), str(agent_cache())],
            )
            with serving(StampedFake(steps=[])) as fake:
                assert isinstance(fake, StampedFake)
                desk = DeskClient(await connect(settings), settings)
                bench = Bench(root, claude, settings, desk, fake, gates)
                for sandbox in SANDBOXES:
                    folder = root / sandbox  # each worker's own (its CLI's config folder too)
                    folder.mkdir()
                    env = worker_env(settings, fake, folder)
                    env["CODEDESK_SANDBOX"] = sandbox
                    worker = Worker(env, folder)
                    await worker.start()
                    if sandbox == SANDBOXES[0]:
                        await desk.add_repo(REPO, str(make_origin(root / "origin")))
                    rows[sandbox] = []
                    for turn in range(rounds):
                        cli = await bench.cli_round(f"Bare message {sandbox} {turn}: read this.")
                        said = f"Job message {sandbox} {turn}: read this."
                        returned, called = await bench.job_round(said)
                        row = {"cli_ms": cli, "say_returned_ms": returned, "say_ms": called}
                        rows[sandbox].append(row)
                    await worker.kill()
                    worker = None
        finally:
            if worker is not None:
                await worker.kill()
            server.stop()
    return summary(rows, bench.problems)


def summary(rows: dict[str, list[dict[str, float]]], problems: list[str]) -> dict[str, Any]:
    def over(sandbox: str, key: str) -> float:
        return round(median([row[key] for row in rows[sandbox]]), 1)

    return {
        "rounds": len(rows["none"]),
        "jobs": sum(len(done) for done in rows.values()),
        "ok": not problems,
        "problems": problems,
        "claude_version": AGENT_PRESETS["claude"].proven_version,
        "say_returned_to_request_ms": over("none", "say_returned_ms"),
        "say_to_request_ms": over("none", "say_ms"),
        "cli_write_to_request_ms": over("none", "cli_ms"),
        "sandboxed_say_returned_to_request_ms": over("bwrap", "say_returned_ms"),
        "sandboxed_cli_write_to_request_ms": over("bwrap", "cli_ms"),
        "runs": {
            sandbox: [{key: round(value, 1) for key, value in row.items()} for row in done]
            for sandbox, done in rows.items()
        },
    }


def main() -> int:
    chosen = claude_bench("conversation", __doc__, rounds=5)
    if chosen is None:
        return 0
    args, claude = chosen
    figures = asyncio.run(run(args.rounds, claude))
    baseline = figures["cli_write_to_request_ms"]
    returned = figures["say_returned_to_request_ms"]
    comparisons = [
        Comparison(
            "`say` returning to the model's request holding the message, the agent unconfined"
            " (median)",
            returned,
            "ms",
            "the same Claude Code, the message written on its input, to that request",
            baseline,
            f"<= {TARGET}x",
            returned <= TARGET * baseline,
        ),
        Comparison(
            "`say` called to the model's request holding the message (median)",
            figures["say_to_request_ms"],
            "ms",
            "the same baseline",
            baseline,
        ),
        Comparison(
            "`say` returning to that request, the job's agent in bubblewrap (median)",
            figures["sandboxed_say_returned_to_request_ms"],
            "ms",
            "the bare CLI as above, the same rounds",
            figures["sandboxed_cli_write_to_request_ms"],
        ),
    ]
    text = (
        f"{figures['rounds']} rounds each way, Claude Code {figures['claude_version']}, the "
        "job's agent unconfined, then in bubblewrap; each message sent while the agent's bash "
        "call ran, the call ended at once."
    )
    report("conversation", figures, comparisons, args, text)
    for problem in figures["problems"]:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    exit_with(main)
