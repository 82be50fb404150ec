"""Bench: an answer, until the agent works again (issue 49), per kind of wait, against a bare
`claude -p --resume` of a session started by hand, in one run.

Usage: python bench/answer_to_model.py [--rounds N] [--json] [--out FILE]

It starts its own headless Temporal dev server, a real `codedesk worker` process (one desk slot,
a live window of 2 s, agents in bubblewrap), a bare origin, a temporary home, and the scripted
fake of the Anthropic API (tests/real_agents/fake_anthropic.py) that the real Claude Code CLI
(the `claude` preset's proven version, installed into the agent cache) talks to. Each of N
rounds (default 3) runs, interleaved:

- the baseline: a bare session (`claude -p -- <task>`, no sandbox, no codedesk, a fresh config
  folder), then `claude -p --resume <its session> -- <message>`, timed from that spawn to the
  fake's first request carrying the message. The baseline runs unconfined: it is what a person
  resuming the session by hand waits; codedesk's figures include the sandbox (bubblewrap and
  the egress proxy), a guarantee, not a cost to cut;
- a held call: the agent's `git push` is held, nobody answers within the live window, the job
  suspends; from `ApprovalsClient.answer` (approve) to the deferred call's result at the model;
- a review's revision: a `--review` job waits in review; from `DeskClient.say` to the model's
  request carrying the reviewer's words; then `integrate`;
- a budget's go-on: a job whose agent works past its work budget pauses at its budget card;
  from `ApprovalsClient.answer` (approve) to the model's request carrying the go-on note;
- a message to a finished job: from `DeskClient.say` to the integrated job to the model's
  request (the new job's) carrying the message.

For each codedesk wait it also splits the time, from the answer: when the workflow scheduled the
agent's activity again (the job's history) and when a worker started it, when bubblewrap and
the CLI were spawned (their start times in /proc): what codedesk adds before the CLI runs, apart
from the CLI's own resume in the sandbox. Figures: medians, each against the baseline's median
(the target: within 1.3x). It exits non-zero unless every job ended as its script says. Without
bubblewrap, node or npm, or where the CLI cannot be installed, it says why and exits 0 without
figures.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# The fake model API, the CLI's installer and the real-agent worker's environment are the test
# suite's: the repository's root must be importable (the bench may run from anywhere).
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from common import Comparison, exit_with, isolate, make_origin, median, report, start_server  # noqa: E402
from suspension import (  # noqa: E402
    PATIENCE,
    StampedFake,
    Worker,
    bash,
    claude_bench,
    has_result,
    log_tail,
    until,
    worker_env,
)
from temporalio.api.enums.v1 import EventType  # noqa: E402
from temporalio.client import Client  # noqa: E402

from desk.agents.presets import AGENT_PRESETS, preset_command  # noqa: E402
from desk.config.settings import DeskSettings, load_settings  # noqa: E402
from desk.holds.approvals import ApprovalState, Decision, Principal  # noqa: E402
from desk.holds.budget_cards import GO_ON_MESSAGE  # noqa: E402
from desk.names import job_workflow_id  # noqa: E402
from desk.payloads.agent_progress import RUN_AGENT  # noqa: E402
from desk.payloads.conversation.review_payloads import ReviewVerdict  # noqa: E402
from desk.payloads.jobs import JobOutcome, JobPhase, JobReport  # noqa: E402
from surfaces.clients.approval_client import ApprovalsClient  # noqa: E402
from surfaces.clients.desk_client import DeskClient  # noqa: E402
from tests.real_agents.fake_anthropic import IfTold, Say, Step, serving, told  # noqa: E402
from workers.temporal.client import connect  # noqa: E402

REPO = "bench/answers"
TASK = "add a notes file and commit it"
ASKED = "Please also add a CHANGELOG.md"
GO_ON_WORDS = GO_ON_MESSAGE[:40]
PUSH = "git push origin HEAD:main"
BUDGET = timedelta(seconds=6)
"""The budget job's work budget: its agent's endless call reaches it."""
PARTS = ("ms", "to_scheduled_ms", "to_started_ms", "to_sandbox_ms", "to_cli_ms")
"""A row's figures: the whole, and when (from the answer) the workflow scheduled the agent's
activity, a worker started it, the sandbox (bwrap) and the CLI were spawned."""
KINDS = ("held", "review", "budget", "continuation")
WHAT = {
    "held": "a held call's approval, to the deferred call's result at the model",
    "review": "a review's revision (`say`), to the model's request carrying it",
    "budget": "a budget's go-on (the card approved), to the model's request carrying the note",
    "continuation": "a message to a finished job, to the new job's request carrying it",
}
WRITE = bash("date +%s%N >> NOTES.md")  # a new line each time: a commit every round
COMMIT = bash("git add -A && git commit -q -m 'Add notes'")
WRITE_MORE = bash("date +%s%N >> CHANGELOG.md")
COMMIT_MORE = bash("git add -A && git commit -q -m 'Add the changelog'")


def scripts(never: Path) -> dict[str, list[Step]]:
    """Each kind's script of the model."""
    forever = bash(f"while [ ! -e {never} ]; do sleep 0.1; done")
    revised: list[Step] = [IfTold(ASKED, WRITE_MORE), COMMIT_MORE, Say("Added the changelog.")]
    return {
        "held": [WRITE, COMMIT, bash(PUSH), Say("Committed; pushed.")],
        "review": [WRITE, COMMIT, Say("Added the notes."), *revised],
        # A release may keep the stopped call in the resumed session as a turn of its own, or
        # not: either way the steps after the note write the changelog, then commit it.
        "budget": [
            WRITE,
            COMMIT,
            forever,
            IfTold(GO_ON_WORDS, WRITE_MORE),
            IfTold(GO_ON_WORDS, WRITE_MORE),
            COMMIT_MORE,
            Say("Added the changelog too."),
        ],
        "continuation": [WRITE, COMMIT, Say("I added NOTES.md and committed it."), *revised],
    }


def carrying(fake: StampedFake, mark: int, words: str) -> Callable[[], float]:
    """A probe: when the first request since `mark` that carries `words` arrived (0 while none)."""
    return lambda: next(
        (at for at, body in fake.since(mark) if body.get("tools") and told(body, words)), 0.0
    )


def bare_env(claude: Path, fake: StampedFake, folder: Path) -> dict[str, str]:
    return {
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


async def bare_resume_ms(claude: Path, fake: StampedFake, root: Path) -> float:
    """A bare session, then its resume with a message: the resume's spawn to the model's
    request carrying the message, in ms (no sandbox, no codedesk)."""
    fake.steps = [Say("Hello."), Say("Noted.")]
    folder = Path(tempfile.mkdtemp(prefix="bare-", dir=root))
    for part in ("home", "work"):
        (folder / part).mkdir()
    env = bare_env(claude, fake, folder)
    stream = ["--output-format", "stream-json", "--verbose"]
    first = await asyncio.create_subprocess_exec(
        str(claude),
        "-p",
        *stream,
        "--",
        TASK,
        cwd=folder / "work",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    out, _ = await asyncio.wait_for(first.communicate(), PATIENCE)
    session = next(
        (
            json.loads(line)["session_id"]
            for line in out.decode().splitlines()
            if line.startswith("{") and "session_id" in json.loads(line)
        ),
        "",
    )
    if not session:
        raise RuntimeError(f"the bare session told no session id: {out.decode()[-1500:]}")
    mark = fake.mark()
    started = time.monotonic()
    resumed = await asyncio.create_subprocess_exec(
        str(claude),
        "-p",
        "--resume",
        session,
        *stream,
        "--",
        ASKED,
        cwd=folder / "work",
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        at = await until(carrying(fake, mark, ASKED), "the bare resume's request")
    finally:
        await asyncio.wait_for(resumed.wait(), PATIENCE)
    shutil.rmtree(folder, ignore_errors=True)
    return float(at - started) * 1000


def process_starts() -> dict[int, tuple[float, str]]:
    """Every live process: its start (CLOCK_BOOTTIME seconds) and its command line's first two
    words. /proc gives a start in clock ticks (10 ms), floored: read as the start of its tick it
    could precede the answer it follows, so each is read as the end of its tick, never early."""
    found: dict[int, tuple[float, str]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")[:2]
        except OSError:
            continue
        start = (int(stat.rpartition(")")[2].split()[19]) + 1) / tick
        found[int(entry.name)] = (start, " ".join(word.decode(errors="replace") for word in argv))
    return found


@dataclass
class Spawns:
    """Watches for the agent's processes that start after an answer: the sandbox's (bwrap) and
    the CLI's (node running claude), each at its start (CLOCK_BOOTTIME seconds)."""

    before: set[int]
    sandbox: float = 0.0
    cli: float = 0.0

    @classmethod
    def now(cls) -> Spawns:
        return cls(set(process_starts()))

    def look(self) -> None:
        for pid, (start, words) in process_starts().items():
            if pid in self.before:
                continue
            first = words.split(" ")[0]
            if first.endswith("bwrap") and not self.sandbox:
                self.sandbox = start
            if "claude" in words and first.rpartition("/")[2] in ("node", "claude"):
                self.cli = self.cli or start


async def agent_after(client: Client, number: int, since: datetime) -> tuple[float, float]:
    """When (epoch seconds) job `number`'s workflow scheduled its agent's activity first after
    `since`, and when a worker started that one (0.0 for what its history lacks)."""
    history = await client.get_workflow_handle(job_workflow_id(number)).fetch_history()
    scheduled: dict[int, float] = {}
    for event in history.events:
        at = event.event_time.ToDatetime(tzinfo=UTC)
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attributes = event.activity_task_scheduled_event_attributes
            if attributes.activity_type.name == RUN_AGENT and at >= since:
                scheduled[event.event_id] = at.timestamp()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            which = event.activity_task_started_event_attributes.scheduled_event_id
            if which in scheduled:
                return scheduled[which], at.timestamp()
    first = min(scheduled.values(), default=0.0)
    return first, 0.0


@dataclass
class Bench:
    settings: DeskSettings
    desk: DeskClient
    approvals: ApprovalsClient
    fake: StampedFake
    scripts: dict[str, list[Step]]
    problems: list[str] = field(default_factory=list)

    def expect(self, ok: bool, problem: str) -> None:
        if not ok:
            self.problems.append(problem)

    @property
    def owner(self) -> Principal:
        return Principal(id=self.settings.owner)

    async def start(self, kind: str, **options: Any) -> int:
        self.fake.steps = self.scripts[kind]
        return await self.desk.start_job(
            REPO, TASK, agent_command=preset_command("claude"), **options
        )

    async def timed(
        self, number: int, answer: Callable[[], Awaitable[int]], arrived: Callable[[int], Any]
    ) -> dict[str, Any]:
        """Gives the answer (which returns the number of the job that resumes) and times it."""
        spawns = Spawns.now()
        mark = self.fake.mark()
        wall = datetime.now(UTC)
        boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        started = time.monotonic()
        resumes = await answer()

        def seen() -> float:
            spawns.look()
            return float(arrived(mark))

        at = await until(seen, "the resumed agent's request")
        answered_ms = (at - started) * 1000
        row = {"job": number, "resumes": resumes, "wall": wall, "ms": round(answered_ms, 1)}
        if spawns.sandbox and spawns.cli:
            row["to_sandbox_ms"] = round((spawns.sandbox - boot) * 1000, 1)
            row["to_cli_ms"] = round((spawns.cli - boot) * 1000, 1)
        else:
            self.problems.append(f"job {number}: the resumed agent's processes were not seen")
        return row

    async def split(self, row: dict[str, Any]) -> dict[str, Any]:
        """The row's time, split at the agent's activity scheduled and started (from history)."""
        wall: datetime = row.pop("wall")
        scheduled, started = await agent_after(self.desk.client, row["resumes"], wall)
        if scheduled and started:
            row["to_scheduled_ms"] = round((scheduled - wall.timestamp()) * 1000, 1)
            row["to_started_ms"] = round((started - wall.timestamp()) * 1000, 1)
        else:
            self.problems.append(f"job {row['resumes']}: no agent activity after the answer")
        return row

    async def held_round(self) -> dict[str, Any]:
        number = await self.start("held")
        card = await until(lambda: self._card(number, "Bash"), "the held push's approval")
        await until(lambda: self._phase(number, JobPhase.SUSPENDED), "the job to suspend")

        async def approve() -> int:
            result, _ = await self.approvals.answer(card.approval_id, Decision.APPROVE, self.owner)
            self.expect(result.counted, f"job {number}: the approving answer did not count")
            return number

        def arrived(mark: int) -> float:
            return next(
                (at for at, body in self.fake.since(mark) if has_result(body, "toolu_0002")), 0.0
            )

        row = await self.timed(number, approve, arrived)
        done = await self.report(number)
        self.expect(done.agent_suspended == 1, f"job {number} suspended {done.agent_suspended}x")
        return await self.split(row)

    async def review_round(self) -> dict[str, Any]:
        number = await self.start("review", review=True)
        await until(lambda: self._rounds(number, 1), "the job in review")

        async def revise() -> int:
            await self.desk.say(number, ASKED)
            return number

        row = await self.timed(number, revise, lambda mark: carrying(self.fake, mark, ASKED)())
        await until(lambda: self._rounds(number, 2), "the revised job in review")
        await self.desk.answer_review(number, ReviewVerdict.INTEGRATE)
        await self.report(number)
        return await self.split(row)

    async def budget_round(self) -> dict[str, Any]:
        number = await self.start("budget", budget=BUDGET)
        await until(lambda: self._phase(number, JobPhase.BUDGET_PAUSED), "the budget pause")
        card = await until(lambda: self._card(number, None), "the budget card")

        async def go_on() -> int:
            await self.approvals.answer(card.approval_id, Decision.APPROVE, self.owner)
            return number

        row = await self.timed(number, go_on, lambda mark: carrying(self.fake, mark, GO_ON_WORDS)())
        await self.report(number)
        return await self.split(row)

    async def continuation_round(self) -> dict[str, Any]:
        number = await self.start("continuation")
        await self.report(number)

        async def say() -> int:
            answer = await self.desk.say(number, ASKED)
            self.expect(not answer.continued_anew, f"job {number}'s continuation started anew")
            return answer.number

        row = await self.timed(number, say, lambda mark: carrying(self.fake, mark, ASKED)())
        await self.report(row["resumes"])
        return await self.split(row)

    async def _card(self, number: int, tool: str | None) -> ApprovalState | None:
        for state in await self.approvals.open_approvals():
            request = state.request
            if request.scope != f"job-{number}":
                continue
            if tool is None and request.budget is not None:
                return state
            if tool is not None and request.tool == tool and PUSH in json.dumps(request.input):
                return state
        return None

    async def _phase(self, number: int, phase: JobPhase) -> bool:
        _, status = await self.desk.status(number)
        return bool(status.phase == phase)

    async def _rounds(self, number: int, rounds: int) -> bool:
        _, status = await self.desk.status(number)
        return status.phase == JobPhase.REVIEW and len(status.review_rounds) == rounds

    async def report(self, number: int) -> JobReport:
        done = await asyncio.wait_for(self.desk.wait(number), 3 * PATIENCE)
        if done.outcome != JobOutcome.INTEGRATED:
            self.problems.append(
                f"job {number} ended {done.outcome.value} ({done.reason}); the last tool "
                f"results: {self.fake.tool_results()[-4:]}; the log's end: "
                f"{log_tail(done.log_path)}"
            )
        return done


async def run(rounds: int, claude: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="codedesk-bench-") as tmp:
        root = Path(tmp)
        isolate(root)
        gates = root / "gates"
        gates.mkdir()
        home = root / "home"
        server = await start_server(home)
        worker: Worker | None = None
        rows: list[dict[str, Any]] = []
        try:
            settings = load_settings(
                home=home,
                shelf=home / "shelf",
                temporal_address=server.address,
                namespace="default",
                task_queue=f"bench-{uuid.uuid4().hex[:8]}",
                sandbox_read_paths=[str(gates)],
            )
            with serving(StampedFake(steps=[])) as fake:
                assert isinstance(fake, StampedFake)
                worker = Worker(worker_env(settings, fake, root), root)
                await worker.start()
                client = await connect(settings)
                desk = DeskClient(client, settings)
                await desk.add_repo(REPO, str(make_origin(root / "origin")))
                bench = Bench(
                    settings, desk, ApprovalsClient(client), fake, scripts(gates / "never")
                )
                for _ in range(rounds):
                    row: dict[str, Any] = {
                        "bare_resume_ms": round(await bare_resume_ms(claude, fake, root), 1)
                    }
                    row["held"] = await bench.held_round()
                    row["review"] = await bench.review_round()
                    row["budget"] = await bench.budget_round()
                    row["continuation"] = await bench.continuation_round()
                    rows.append(row)
        finally:
            if worker is not None:
                await worker.kill()
            server.stop()
    return summary(rows, bench.problems)


def summary(rows: list[dict[str, Any]], problems: list[str]) -> dict[str, Any]:
    def over(kind: str, key: str) -> float:
        values = [float(row[kind][key]) for row in rows if row[kind].get(key) is not None]
        return round(median(values), 1) if values else 0.0

    figures: dict[str, Any] = {
        "rounds": len(rows),
        "jobs": 5 * len(rows),
        "ok": not problems,
        "problems": problems,
        "claude_version": AGENT_PRESETS["claude"].proven_version,
        "bare_resume_ms": round(median([row["bare_resume_ms"] for row in rows]), 1),
    }
    for kind in KINDS:
        for key in PARTS:
            figures[f"{kind}_{key}"] = over(kind, key)
    figures["runs"] = rows
    return figures


def main() -> int:
    chosen = claude_bench("answer_to_model", __doc__, rounds=3)
    if chosen is None:
        return 0
    args, claude = chosen
    figures = asyncio.run(run(args.rounds, claude))
    bare = figures["bare_resume_ms"]
    baseline = "a bare `claude -p --resume` (no sandbox, no codedesk), spawn to that request"
    comparisons = [
        Comparison(
            f"{WHAT[kind]} (median)",
            figures[f"{kind}_ms"],
            "ms",
            baseline,
            bare,
            "<= 1.3x baseline",
            figures[f"{kind}_ms"] <= 1.3 * bare,
        )
        for kind in KINDS
    ]
    parts = "; ".join(
        f"{kind}: the agent's activity scheduled at {figures[f'{kind}_to_scheduled_ms']:.0f} ms, "
        f"started at {figures[f'{kind}_to_started_ms']:.0f}, bwrap spawned at "
        f"{figures[f'{kind}_to_sandbox_ms']:.0f}, the CLI at {figures[f'{kind}_to_cli_ms']:.0f}, "
        f"the request at {figures[f'{kind}_ms']:.0f}"
        for kind in KINDS
    )
    text = (
        f"{figures['rounds']} rounds, Claude Code {figures['claude_version']} in bubblewrap "
        f"(the baseline unconfined); from the answer (medians): {parts}."
    )
    report("answer_to_model", figures, comparisons, args, text)
    for problem in figures["problems"]:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    exit_with(main)
