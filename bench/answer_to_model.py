"""Bench: an answer, until the agent works again (issue 49), per kind of wait, against a bare
`claude -p --resume` of the same session started by hand, in one run.

Usage: python bench/answer_to_model.py [--rounds N] [--json] [--out FILE]

It starts its own headless Temporal dev server, a real `codedesk worker` process (one desk slot,
a live window of 2 s, agents in bubblewrap), a bare origin, a temporary home, and the scripted
fake of the Anthropic API (tests/real_agents/fake_anthropic.py) that the real Claude Code CLI
(the `claude` preset's proven version, installed into the agent cache) talks to. Each of N
rounds (default 3) runs, interleaved:

- the baselines (bench/bare_resume.py): each kind's session run by hand (`claude -p -- <task>`, no
  sandbox, no codedesk, a fresh config folder) through the same script of the fake model to where
  codedesk's job waits, then resumed by hand: for a held call, the session whose `git push` its
  hook deferred, resumed with no prompt once the hook answers it as codedesk answers an approved
  push of the job's work (refused: codedesk pushes it itself after the integration, so the push
  runs in neither), to that answer at the model; for a revision and a message to a finished job,
  resumed with the message; for a go-on, the session stopped by hand while its endless call
  runs (as codedesk stops the agent at its budget), resumed with the go-on note (each to the
  fake's first request carrying it). A deferral needs a hook, so every bare session has the
  least one: a one-line `sh` script. The baselines run unconfined: that is what a person
  resuming the session by hand waits; codedesk's figures include the sandbox (bubblewrap and
  the egress proxy), a guarantee, not a cost to cut. The least session there is (one answer)
  resumed with a message is timed too, for the history (earlier runs compared every kind
  against it);
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
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

# The fake model API, the CLI's installer and the real-agent worker's environment are the test
# suite's: the repository's root must be importable (the bench may run from anywhere).
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

from bare_resume import deferred_resume_ms, message_resume_ms, stopped_resume_ms  # noqa: E402
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
BUDGET_STOPS_AT = 3
"""The budget script's request answered with its endless call (after the write and the commit)."""
LEAST_SESSION: list[Step] = [Say("Hello."), Say("Noted.")]
"""The least session there is (one answer): every kind's baseline until 2026-12-07, still timed
for the history."""
HELD_CALL = "toolu_0002"
"""The fake's id of the held script's third call, the push."""
BUDGET = timedelta(seconds=6)
"""The budget job's work budget: its agent's endless call reaches it."""
PARTS = ("ms", "to_scheduled_ms", "to_started_ms", "to_sandbox_ms", "to_cli_ms")
"""A row's figures: the whole, and when (from the answer) the workflow scheduled the agent's
activity, a worker started it, the sandbox (bwrap) and the CLI were spawned."""
KINDS = ("held", "review", "budget", "continuation")
BASELINES = {
    "held": "bare_deferred_ms",
    "review": "bare_message_ms",
    "budget": "bare_go_on_ms",
    "continuation": "bare_message_ms",
}
"""Each kind's baseline: its session resumed by hand (bench/bare_resume.py)."""
BASELINE_WORDS = {
    "bare_deferred_ms": "the same session's deferred push resumed by hand (`claude -p --resume`,"
    " a one-line `sh` hook answering it as codedesk does; no sandbox, no codedesk): spawn to"
    " its result",
    "bare_message_ms": "the same session resumed by hand with the message (`claude -p --resume`;"
    " no sandbox, no codedesk): spawn to that request",
    "bare_go_on_ms": "the same session, stopped by hand mid-call, resumed with the note"
    " (`claude -p --resume`; no sandbox, no codedesk): spawn to that request",
}
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


def carrying(fake: StampedFake, words: str) -> Callable[[int], float]:
    """A probe: when the first request since a mark that carries `words` arrived (0 while none)."""
    return lambda mark: next(
        (at for at, body in fake.since(mark) if body.get("tools") and told(body, words)), 0.0
    )


def resulting(fake: StampedFake, tool_use_id: str) -> Callable[[int], float]:
    """A probe: when the first request since a mark that carries the result of the call
    `tool_use_id` arrived (0 while none)."""
    return lambda mark: next(
        (at for at, body in fake.since(mark) if has_result(body, tool_use_id)), 0.0
    )


async def baselines(
    claude: Path, fake: StampedFake, root: Path, script: dict[str, list[Step]]
) -> dict[str, Any]:
    """One round's baselines: each kind's session resumed by hand (bench/bare_resume.py), and
    the least session resumed with a message."""
    bare = {
        "bare_resume_ms": await message_resume_ms(
            claude, fake, root, LEAST_SESSION, TASK, ASKED, carrying(fake, ASKED)
        ),
        "bare_deferred_ms": await deferred_resume_ms(
            claude, fake, root, script["held"], TASK, resulting(fake, HELD_CALL)
        ),
        "bare_message_ms": await message_resume_ms(
            claude,
            fake,
            root,
            script["review"],
            TASK,
            ASKED,
            carrying(fake, ASKED),
        ),
        "bare_go_on_ms": await stopped_resume_ms(
            claude,
            fake,
            root,
            lambda gate: scripts(gate)["budget"],
            BUDGET_STOPS_AT,
            TASK,
            GO_ON_MESSAGE,
            carrying(fake, GO_ON_WORDS),
        ),
    }
    return {key: round(value, 1) for key, value in bare.items()}


@dataclass(frozen=True)
class Process:
    """One live process as /proc shows it: its start (CLOCK_BOOTTIME seconds), its parent, and
    its command line's first two words."""

    start: float
    parent: int
    words: str

    @property
    def is_sandbox(self) -> bool:
        return self.words.split(" ")[0].endswith("bwrap")

    @property
    def is_cli(self) -> bool:
        first = self.words.split(" ")[0]
        return "claude" in self.words and first.rpartition("/")[2] in ("node", "claude")


def processes(known: Collection[int] = ()) -> dict[int, Process]:
    """Every live process but those in `known`. /proc gives a start in clock ticks (10 ms),
    floored: read as the start of its tick it could precede the answer it follows, so each is
    read as the end of its tick, never early."""
    found: dict[int, Process] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in known:
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
            argv = (entry / "cmdline").read_bytes().split(b"\0")[:2]
        except OSError:
            continue
        found[int(entry.name)] = Process(
            start=(int(fields[19]) + 1) / tick,
            parent=int(fields[1]),
            words=" ".join(word.decode(errors="replace") for word in argv),
        )
    return found


@dataclass
class Spawns:
    """Watches for the resumed agent's processes: the sandbox's (bwrap) and the CLI's (node
    running claude) inside it, each at its start (CLOCK_BOOTTIME seconds). A CLI counts only
    under a bwrap started after the answer: the job that resumed before this one still runs its
    script, and a child its CLI forks reads as that CLI until it execs (CI of 2026-12-07 timed
    such a child as this answer's CLI, 70 ms before this answer's sandbox). It reads only the
    processes started since the answer, and nothing once it has seen both: the bench's own
    reading of /proc takes the CPU the resumed CLI needs (every live process read every 50 ms
    took 10-15% of a core in the runs of 2026-12-07, which no baseline paid)."""

    before: set[int]
    sandbox: float = 0.0
    cli: float = 0.0

    @classmethod
    def now(cls) -> Spawns:
        return cls(set(processes()))

    def look(self) -> None:
        if self.sandbox and self.cli:
            return
        new = processes(self.before)
        for process in sorted(new.values(), key=lambda each: each.start):
            if not process.is_cli:
                continue
            sandboxes = [new[pid] for pid in self._ancestors(process, new) if new[pid].is_sandbox]
            if sandboxes:
                self.sandbox = min(each.start for each in sandboxes)
                self.cli = process.start
                return

    @staticmethod
    def _ancestors(process: Process, new: dict[int, Process]) -> list[int]:
        """The pids above `process` that started since the answer, nearest first."""
        found: list[int] = []
        parent = process.parent
        while parent in new and parent not in found:
            found.append(parent)
            parent = new[parent].parent
        return found


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

        row = await self.timed(number, approve, resulting(self.fake, HELD_CALL))
        done = await self.report(number)
        self.expect(done.agent_suspended == 1, f"job {number} suspended {done.agent_suspended}x")
        return await self.split(row)

    async def review_round(self) -> dict[str, Any]:
        number = await self.start("review", review=True)
        await until(lambda: self._rounds(number, 1), "the job in review")

        async def revise() -> int:
            await self.desk.say(number, ASKED)
            return number

        row = await self.timed(number, revise, carrying(self.fake, ASKED))
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

        row = await self.timed(number, go_on, carrying(self.fake, GO_ON_WORDS))
        await self.report(number)
        return await self.split(row)

    async def continuation_round(self) -> dict[str, Any]:
        number = await self.start("continuation")
        await self.report(number)

        async def say() -> int:
            answer = await self.desk.say(number, ASKED)
            self.expect(not answer.continued_anew, f"job {number}'s continuation started anew")
            return answer.number

        row = await self.timed(number, say, carrying(self.fake, ASKED))
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
                    row = await baselines(claude, fake, root, bench.scripts)
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
    }
    for key in dict.fromkeys([*BASELINES.values(), "bare_resume_ms"]):
        figures[key] = round(median([row[key] for row in rows]), 1)
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
    comparisons = [
        Comparison(
            f"{WHAT[kind]} (median)",
            figures[f"{kind}_ms"],
            "ms",
            BASELINE_WORDS[BASELINES[kind]],
            figures[BASELINES[kind]],
            "<= 1.3x baseline",
            figures[f"{kind}_ms"] <= 1.3 * figures[BASELINES[kind]],
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
        f"(the baselines unconfined); from the answer (medians): {parts}. The least session "
        f"(one answer) resumed by hand with a message: {figures['bare_resume_ms']:.0f} ms."
    )
    report("answer_to_model", figures, comparisons, args, text)
    for problem in figures["problems"]:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    exit_with(main)
