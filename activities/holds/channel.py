"""The hold channel: a per-job Unix socket the worker serves while its agent runs.

The agent's hook (surfaces/hook.py) reaches its own job only through this socket: it never gets
a Temporal address. The channel answers hold requests of that one job and nothing else. It
reads each held call again on its full input (the shell rule), then asks the job by the
`hold` Update with a bounded summary (a digest, sizes, a capped preview), so no call carries
megabytes into the job's history. It counts the calls the hook tallies, and while a hold
waits it samples the agent (activities/holds/work_clock.py): time the agent kept working beside a
waiting hold is signalled to the job, so that time counts against the work budget.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio.client import (
    Client,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.service import RPCError, RPCStatusCode

from activities.holds.early_approval import ApprovalWatches, approval_of
from activities.holds.ship_target import PushTarget, push_target
from activities.holds.tool_schemas import preset_tool_schema
from activities.holds.work_clock import SAMPLE_SECONDS, BesideHolds, peer_pid
from activities.sandbox.egress_proxy import Traffic
from desk.errors import GitError
from desk.holds.approvals import AgentWorked, CallSummary, HoldAnswer, HoldRequest, HoldVerdict
from desk.holds.held_calls import (
    call_digest,
    canonical_json,
    classify,
    preview,
    reaches_outside,
    with_cwd,
)
from desk.holds.protocol import (
    ANSWER_SLACK_SECONDS,
    CONFIG_NAME,
    HOLD,
    TALLY,
    HookConfig,
    Reachable,
)
from desk.names import JOB_AGENT_WORKED_SIGNAL, JOB_HOLD_UPDATE, job_workflow_id
from desk.usage.reported import MAX_USAGE_BYTES, USAGE, reported_usage
from desk.usage.tally import Usage

LAST_REPORTS_QUIET_ROUNDS = 5
"""Rounds of the loop in a row with no connection pending or unread before the channel closes:
a connection the loop accepts is read a few rounds later (its transport, then its task)."""
LAST_REPORTS_ROUND = 0.001
"""Seconds each round sleeps: what counts is that the loop goes round (a round of 10 ms made
every agent run's end wait 50 ms, the largest fixed cost of a small job; issue 49)."""
LAST_REPORTS_WAIT = 2.0
"""Seconds the channel waits at most for the agent's last reports once the agent has ended."""

MAX_TALLY_BYTES = 4096
REPORT_EVERY_SECONDS = 5.0
"""At most one `agent_worked` signal per this many seconds."""
ACTION_CHARS = 2000
EARLY_MARGIN_SECONDS = 5.0
"""An approval seen later than this before the end of the hold's wait waits for the job."""


@dataclass(frozen=True)
class ChannelRules:
    """What the channel and the hook need to decide: the job's hold settings and limits."""

    worktree: str
    hold_classes: tuple[str, ...]
    hold_tools: tuple[str, ...]
    wait: timedelta
    preview_chars: int
    max_request_bytes: int
    branch_ref: str = ""
    """Where a sandboxed agent's branch ref lives on the host (its HEAD, for a push it asks
    codedesk to make); empty: the worktree's own HEAD says it."""
    live_wait: timedelta | None = None
    """How long a held call waits live before it is deferred and the agent suspended (None:
    the job cannot suspend; it waits `wait` and is refused)."""
    ends_to_suspend: bool = False
    """The CLI cannot defer (codex): a deferred call is refused with a note to stop, and
    `suspending` is set once the hook has that answer, so that the run ends the agent."""


class HoldChannel:
    """A served channel: how many calls the hook reported, and the agent to watch."""

    def __init__(self, number: int, client: Client, rules: ChannelRules) -> None:
        self.number = number
        self.client = client
        self.rules = rules
        self.calls = 0
        self.usage = Usage()
        """Usage the agent reported itself (`{"kind": "usage", ...}` lines), added."""
        self.unread: set[asyncio.StreamWriter] = set()
        """Connections whose one line is not yet read and taken in (a usage report among
        them): the channel does not close before they are."""
        self.waiting = 0
        self.clock = BesideHolds()
        self.busy_seconds = 0.0
        self.signs: set[str] = set()
        self.answering: set[asyncio.Task[HoldAnswer]] = set()
        self.watches = ApprovalWatches(client, number)
        self.confined = False
        self.can_defer = False
        """The agent's CLI said it can defer a call (run_agent reads its output)."""
        self.deferred = ""
        """The approval of the call the hook deferred (the agent then ends): one per run."""
        self.suspending = asyncio.Event()
        """Set once the hook of a CLI that cannot defer was told to stop for a deferred call
        (`ChannelRules.ends_to_suspend`): the run ends the agent, its session kept."""
        self.may_defer: Callable[[], bool] = lambda: True
        """Whether a call may be deferred now, as the agent's input says: not while a message
        written to the CLI is unread (activities/agent/session/live_messages.py)."""

    def watch(self, pid: int, command: Sequence[str] = (), *, confined: bool = False) -> None:
        """Watch this process and its descendants (the agent) while holds wait; `command` is
        what runs inside the sandbox (see `BesideHolds.watch`), and `confined` says whether a
        sandbox runs it at all (a held call approved then runs without credentials)."""
        self.clock.watch(pid, command)
        self.confined = confined

    @property
    def traffic(self) -> Traffic:
        """Where the job's egress proxy counts the bytes it carries."""
        return self.clock.traffic

    def heard(self, size: int) -> None:
        """The agent wrote `size` bytes of output."""
        self.clock.output_bytes += size

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        answer: dict[str, Any] | None = None
        self.unread.add(writer)
        try:
            try:
                line = await reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as short:
                line = short.partial
            except asyncio.LimitOverrunError:
                await _refuse_oversized(reader, writer, self.rules.max_request_bytes)
                return
            answer = await self._answer(
                line, peer_pid(writer.get_extra_info("socket")), lambda: self.unread.discard(writer)
            )
            if answer is not None:
                writer.write(json.dumps(answer).encode() + b"\n")
                await writer.drain()
        except (ConnectionError, OSError):
            pass  # the hook went away; the approval, if any, stays open
        finally:
            self.unread.discard(writer)
            if answer is not None and answer["verdict"] == HoldVerdict.DEFERRED:
                if self.rules.ends_to_suspend:  # told to stop, or gone: the run ends it
                    self.suspending.set()
            writer.close()
            with suppress(ConnectionError, OSError):
                await writer.wait_closed()

    async def _answer(
        self, line: bytes, hook: int, taken_in: Callable[[], None]
    ) -> dict[str, Any] | None:
        """The answer to one line, or None; `taken_in` is called once the line is read and, for
        a usage report, added (with no await between)."""
        try:
            message = await asyncio.to_thread(self._read, line)
        except ValueError as error:
            return _refusal(f"{error}; the call may not run.")
        finally:
            taken_in()
        if isinstance(message, Usage):  # the agent's own usage report (desk/usage/reported.py)
            self.usage = self.usage.plus(message)
            return None
        self.calls += 1
        if message is None:  # a tally: the hook answered the call itself
            return None
        tool, call, parameters, summary = message
        if not summary.classes:
            return {"verdict": HoldVerdict.ALLOWED.value}
        defers = self._defers()
        wait = self.rules.live_wait if defers and self.rules.live_wait else self.rules.wait
        request = HoldRequest(
            tool=tool,
            input=preview(call, self.rules.preview_chars),
            parameters=parameters,
            wait_seconds=wait.total_seconds(),
            summary=summary,
        )
        self.waiting += 1
        try:
            with self.clock.hook_waiting(hook):
                answer = await self._ask_job(request)
        finally:
            self.waiting -= 1
        if defers and answer.verdict == HoldVerdict.PENDING and not self.deferred:
            self.deferred = answer.approval_id
            answer = answer.model_copy(update={"verdict": HoldVerdict.DEFERRED})
        return answer.model_dump(mode="json")

    async def take_in_last_reports(self, server: asyncio.Server) -> None:
        """Once the agent has ended, before the channel closes: take in what it sent last.

        A usage report awaits no answer, so an agent may send one and exit before the loop has
        even accepted the connection, which closing the server then drops (seen under load: a
        job's whole cost lost). This waits until no connection is pending on the socket and
        none is unread, several rounds in a row, for LAST_REPORTS_WAIT at most.
        """
        listening = [sock.fileno() for sock in server.sockets]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LAST_REPORTS_WAIT
        quiet = 0
        while quiet < LAST_REPORTS_QUIET_ROUNDS and loop.time() < deadline:
            pending, _, _ = select.select(listening, [], [], 0)
            quiet = 0 if pending or self.unread else quiet + 1
            await asyncio.sleep(LAST_REPORTS_ROUND)

    def _defers(self) -> bool:
        """Whether a held call nobody answers within the live window is deferred: the job can
        suspend, the CLI said it can defer, and no call of this run was deferred yet."""
        live = self.rules.live_wait is not None and self.can_defer and not self.deferred
        return live and self.may_defer()

    def _read(
        self, line: bytes
    ) -> tuple[str, dict[str, Any], dict[str, Any] | None, CallSummary] | Usage | None:
        """Parse and classify one message (off the loop: the rule reads the file system)."""
        try:
            message = json.loads(line.decode("utf-8"))
            json.dumps(message, ensure_ascii=False).encode("utf-8")
        except (ValueError, RecursionError):
            raise ValueError("The hold request is not JSON text") from None
        if not isinstance(message, dict):
            raise ValueError("The hold request is not a JSON object")
        if message.get("job") != self.number:
            raise ValueError(f"This channel answers holds of job {self.number} only")
        if message.get("kind") == TALLY and len(line) <= MAX_TALLY_BYTES:
            return None
        if message.get("kind") == USAGE and len(line) <= MAX_USAGE_BYTES:
            return reported_usage({k: v for k, v in message.items() if k != "job"})
        if message.get("kind") != HOLD:
            raise ValueError("This channel answers hold requests only")
        tool, call = message.get("tool"), message.get("input", {})
        if not isinstance(tool, str) or not tool:
            raise ValueError("The hold request names no tool")
        parameters = message.get("parameters")
        if not isinstance(parameters, dict) or len(canonical_json(parameters)) > (
            self.rules.preview_chars
        ):
            parameters = None
        # A preset CLI's own tool: its schema as codedesk ships it, not one the call brings.
        parameters = preset_tool_schema(message.get("form"), tool) or parameters
        rules = self.rules
        read = with_cwd(tool, call, message.get("cwd"))
        verdict = classify(tool, read, rules.worktree, rules.hold_classes, rules.hold_tools)
        pushes = verdict.classes == ("push",)
        target = _target(tool, read, rules.worktree, rules.branch_ref) if pushes else None
        branch = target if target is not None and not target.default else None
        summary = CallSummary(
            # A push to a branch pushes the HEAD of its call: a later HEAD is another call.
            digest=call_digest(tool, {**call, "head": branch.head} if branch else call),
            input_bytes=len(canonical_json(call).encode("utf-8", "surrogatepass")),
            classes=list(verdict.classes),
            action=_cut(verdict.action, ACTION_CHARS),
            ships_to=target.branch if target is not None and target.default else "",
            pushes_to=branch.branch if branch else "",
            push_head=branch.head if branch else "",
            confined=self.confined,
            outside_sandbox=self.confined and reaches_outside(tool, read, rules.worktree),
        )
        return tool, call if isinstance(call, dict) else {"input": call}, parameters, summary

    async def _ask_job(self, request: HoldRequest) -> HoldAnswer:
        """The job's answer, or an approval of the call as soon as it is recorded.

        An approval that comes near the end of the hold's wait may reach the job after the job
        gave up on it (and kept it for the next identical call): that one is left to the job's
        own answer, so that no approval lets two calls run.
        """
        loop = asyncio.get_running_loop()
        last_early = loop.time() + request.wait_seconds - EARLY_MARGIN_SECONDS
        asking = asyncio.create_task(self._update(request))
        assert request.summary is not None
        if request.summary.ships_to or request.summary.pushes_to:
            # Approved, it does not run (codedesk pushes): only the job's answer says so.
            return await asking
        async with self.watches.watching(request.summary.digest) as early:
            done, _ = await asyncio.wait({asking, early}, return_when=asyncio.FIRST_COMPLETED)
        approved = approval_of(early) if early in done else None
        if approved is not None and loop.time() <= last_early:
            # The job's own answer still comes, and records the call; keep it alive till then.
            self.answering.add(asking)
            asking.add_done_callback(self.answering.discard)
            return approved
        return await asking

    async def _update(self, request: HoldRequest) -> HoldAnswer:
        """Ask the job by Update; every failure is a refusal the hook passes on."""
        number = self.number
        handle = self.client.get_workflow_handle(job_workflow_id(number))
        timeout = self.rules.wait + timedelta(seconds=ANSWER_SLACK_SECONDS)
        try:
            answer: HoldAnswer = await handle.execute_update(
                JOB_HOLD_UPDATE, request, result_type=HoldAnswer, rpc_timeout=timeout
            )
            return answer
        except WorkflowUpdateRPCTimeoutOrCancelledError:
            reason = f"Job {number} did not answer in time (is a worker running?)"
        except WorkflowUpdateFailedError as error:
            reason = f"Job {number} refused the hold: {error.cause or error}"
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND or "completed" in str(error).lower():
                reason = f"Job {number} is not running"
            else:
                reason = f"Job {number} could not be asked ({error})"
        return HoldAnswer(verdict=HoldVerdict.DECLINED, reason=f"{reason}; the call may not run.")

    async def watch_work(self) -> None:
        """While a hold waits, count the time the agent showed signs of work (see work_clock)."""
        loop = asyncio.get_running_loop()
        reported = loop.time()
        while True:
            await asyncio.sleep(SAMPLE_SECONDS)
            now = loop.time()
            if not self.waiting:
                self.clock.pause()
            else:
                self.busy_seconds += await self.clock.sample(now)
                self.signs.update(self.clock.why)
            if self.busy_seconds and now - reported >= REPORT_EVERY_SECONDS:
                reported = now
                await self.report_work()

    async def report_work(self) -> None:
        seconds, self.busy_seconds = self.busy_seconds, 0.0
        signs, self.signs = sorted(self.signs), set()
        handle = self.client.get_workflow_handle(job_workflow_id(self.number))
        worked = AgentWorked(seconds=seconds, signs=signs)
        try:
            await handle.signal(JOB_AGENT_WORKED_SIGNAL, worked)
        except RPCError:
            pass  # the job has ended; there is no clock left to charge


def _target(tool: str, call: Any, worktree: str, branch_ref: str) -> PushTarget | None:
    """A plain push of the job's work (codedesk carries it out), else None (held as it is)."""
    try:
        return push_target(tool, call, worktree, branch_ref)
    except GitError:  # git could not tell (a busy lock): the call is an ordinary hold
        return None


def _refusal(reason: str) -> dict[str, Any]:
    return HoldAnswer(verdict=HoldVerdict.DECLINED, reason=reason).model_dump(mode="json")


OVERSIZED_DRAIN = timedelta(seconds=2)
"""How long the channel reads on, and drops, an oversized request after refusing it."""


async def _refuse_oversized(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, limit: int
) -> None:
    """Refuse a request over `limit` bytes, so that its sender reads the refusal.

    The rest of the request is still arriving: closing on it unread would reset the connection
    and could take the refusal with it (the sender saw "connection reset", not the reason). So
    the answer goes first, then the end of our side, then what is left is read and dropped
    until the sender closes, for at most OVERSIZED_DRAIN.
    """
    refusal = _refusal(
        f"The hold request is larger than {limit} bytes (CODEDESK_HOLD_REQUEST_BYTES); "
        "the call may not run."
    )
    writer.write(json.dumps(refusal).encode() + b"\n")
    await writer.drain()
    writer.write_eof()
    with suppress(TimeoutError):
        async with asyncio.timeout(OVERSIZED_DRAIN.total_seconds()):
            while await reader.read(1 << 16):
                pass


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text) - limit} more]"


def write_hook_config(folder: Path, number: int, rules: ChannelRules) -> Path:
    """The hook's per-job config, read-only (replaced whole, so a reader never sees half)."""
    config = HookConfig(
        job=number,
        worktree=rules.worktree,
        hold_classes=rules.hold_classes,
        hold_tools=rules.hold_tools,
        wait_seconds=rules.wait.total_seconds(),
        max_request_bytes=rules.max_request_bytes,
    )
    path = folder / CONFIG_NAME
    partial = folder / f".{CONFIG_NAME}.{os.getpid()}"
    partial.write_text(json.dumps(config.to_json(), indent=2) + "\n")
    partial.chmod(0o444)
    partial.replace(path)
    return path


@asynccontextmanager
async def serve_holds(
    socket_path: Path, number: int, client: Client, rules: ChannelRules
) -> AsyncIterator[HoldChannel]:
    """Serve job `number`'s hold channel at `socket_path` (mode 0600) for the block's duration."""
    socket_path.parent.mkdir(parents=True, exist_ok=True)
    with suppress(FileNotFoundError):
        socket_path.unlink()  # a crashed attempt's socket
    write_hook_config(socket_path.parent, number, rules)
    channel = HoldChannel(number, client, rules)
    with Reachable(str(socket_path)) as address:
        server = await asyncio.start_unix_server(
            channel.serve, path=address, limit=rules.max_request_bytes, backlog=512
        )
    socket_path.chmod(0o600)
    watching = asyncio.create_task(channel.watch_work())
    try:
        yield channel
        await channel.take_in_last_reports(server)
    finally:
        watching.cancel()
        server.close()
        with suppress(asyncio.CancelledError):
            await watching
        if channel.busy_seconds:
            await channel.report_work()
        with suppress(FileNotFoundError):
            socket_path.unlink()
