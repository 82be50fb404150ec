"""The `run_agent` activity: the coding agent as a process group in the job's worktree."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import shlex
import shutil
import sys
import tempfile
from collections import deque
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

from temporalio import activity
from temporalio.client import Client

from activities.agent.claim import AgentClaim
from activities.agent.git import AgentGit, agent_git, clean, prepare, take_back
from activities.agent.launch import (
    PRIVATE_HOME,
    SANDBOX_HOME,
    JobPaths,
    Launch,
    plan_launch,
    program_found,
)
from activities.agent.log import AGENT_LOG
from activities.agent.session import (
    SessionWatch,
    deferral_resume_argv,
    earlier_attempts,
    resume_argv,
)
from activities.agent.setup.hold_wiring import wire_holds
from activities.agent.setup.instructions import instructions_for, load_instructions
from activities.agent.spawn import open_gate, spawn
from activities.agent.stream import ClaudeStream, OutputTranslator, final_output, translator_for
from activities.agent.texts import AgentTexts
from activities.agent.usage import UsageWatch
from activities.git.worktrees import WORKTREE_RECEIPT
from activities.holds.channel import ChannelRules, HoldChannel, serve_holds
from activities.off_loop import off_the_loop
from activities.paths import job_dir
from activities.sandbox.bubblewrap import BWRAP, choose_sandbox, log_choice
from activities.sandbox.egress import Traffic, egress_policy, serve_egress
from activities.sandbox.processes import kill_group, kill_stale_agents
from activities.setup.steps import setup_now
from desk.agents.presets import TASK, guards_off_refusal, preset_named_by, with_python
from desk.config.settings import DeskSettings
from desk.errors import AgentCommandError, SandboxError
from desk.failures import desk_failures
from desk.holds.protocol import SOCKET_NAME
from desk.payloads.agent_progress import RUN_AGENT, AgentHeartbeat
from desk.payloads.jobs import AgentEnd, AgentResult, RunAgentInput, Worktree
from desk.scrub import StreamScrubber, scrub

TAIL_LINES = 20
EGRESS_SOCKET = "egress.sock"
NOT_FOUND_EXIT = 127
READ_CHUNK = 1 << 16


def agent_argv(command: str, task: str) -> list[str]:
    """Split the agent command like a shell would, put the task where `{task}` stands and the
    worker's own Python where `{python}` does."""
    try:
        parts = shlex.split(command)
    except ValueError as error:
        raise AgentCommandError(f"Agent command {command!r} cannot be split: {error}.") from None
    if not parts:
        raise AgentCommandError(
            "The agent command is empty: set CODEDESK_AGENT_COMMAND or pass --agent-command."
        )
    return [with_python(part, sys.executable).replace(TASK, task) for part in parts]


class AgentActivities:
    """Runs agents on this host, confined as the sandbox chosen at worker start allows."""

    def __init__(self, settings: DeskSettings, client: Client) -> None:
        self.settings = settings
        self.client = client
        self.sandbox = choose_sandbox(settings.sandbox)
        log_choice(self.sandbox)
        load_instructions(settings)  # an owner's unusable instructions stop the worker here

    @activity.defn(name=RUN_AGENT)
    async def run_agent(self, request: RunAgentInput) -> AgentResult:
        """Run the agent until its own process exits or the job cancels it."""
        info = activity.info()
        folder = job_dir(self.settings, request.number)
        log_path = folder / AGENT_LOG
        folder.mkdir(parents=True, exist_ok=True)
        with desk_failures():
            # The task and the instructions in one pass, after the hook: a text that spells a
            # placeholder stays as it is.
            wiring = wire_holds(agent_argv(request.agent_command, TASK), folder, self.settings)
            preset = preset_named_by(request.agent_command)
            given = await asyncio.to_thread(
                instructions_for, self.settings, wiring.argv, preset, folder, request.task
            )
        argv, hook_file = given.argv, wiring.hook_file
        # Only under the job's claim: a stale attempt never starts an agent beside a later one.
        claimed = AgentClaim.take(folder, info.attempt, request.execution)
        with contextlib.closing(await claimed) as claim:
            # Only an agent the job started before can be stale: the first skips the /proc walk.
            killed = await kill_stale_agents(request.worktree) if claim.run > 1 else 0
            confined = self.sandbox.mode == BWRAP
            refusal = guards_off_refusal(argv, confined, self.settings.unconfined_guards_off)
            earlier = earlier_attempts(info.heartbeat_details)
            home = folder / (SANDBOX_HOME if confined else PRIVATE_HOME)
            known = earlier.session_id or request.resume_session
            if claim.run > 1:
                resumed = resume_argv(argv, known, home)
            elif request.resume_session:  # after a suspension: the hook decides the deferred call
                resumed = deferral_resume_argv(argv, request.resume_session, home)
            else:
                resumed = None
            session = SessionWatch(
                known if resumed else "",
                earlier.resumed + (claim.run > 1 and resumed is not None),
                earlier.started_over + (claim.run > 1 and resumed is None),
            )
            argv = resumed or argv
            translator = translator_for(argv)
            usage = UsageWatch.of(argv, self.settings, request.spend_limit, request.spent_before)
            with log_path.open("a", encoding="utf-8") as log:
                log.write(f"=== codedesk: attempt {claim.run} at {datetime.now(UTC):%H:%M:%S}Z")
                log.write(f"{' after killing a stale agent' if killed else ''}")
                log.write(f", sandbox {self.sandbox.mode} ===\n")
                log.write(f"codedesk: resuming session {session.session_id}\n" if resumed else "")
                if request.resume_session and not resumed:
                    log.write(
                        f"codedesk: session {request.resume_session} is gone; starting over\n"
                    )
                if refusal is not None:
                    log.write(f"codedesk: {refusal}\n")
                    return AgentResult(
                        end=AgentEnd.NOT_STARTED,
                        reason=refusal,
                        log_path=str(log_path),
                        attempts=claim.run,
                        confinement=self.sandbox.mode,
                    )
                if not program_found(argv[0], os.environ.get("PATH", ""), request.worktree):
                    log.write(f"codedesk: could not start {argv[0]!r}: not found\n")
                    return self._not_started(argv[0], log_path, claim.run)
                with desk_failures():
                    git = await off_the_loop(self._agent_git, request) if confined else None
                socket_dir = Path(tempfile.mkdtemp(prefix="codedesk-hold-"))
                egress = (
                    socket_dir / EGRESS_SOCKET
                    if confined and self.settings.sandbox_network
                    else None
                )
                paths = JobPaths(
                    folder, socket_dir / SOCKET_NAME, hook_file, egress, given.files, given.env
                )
                try:
                    rules = self._rules(request, translator, git)
                    socket = paths.hold_socket
                    async with (
                        serve_holds(socket, request.number, self.client, rules) as channel,
                        self._egress_proxy(egress, log, channel.traffic),
                    ):
                        launch = plan_launch(
                            self.settings,
                            self.sandbox.mode,
                            request,
                            argv,
                            paths,
                            claim.run,
                            git,
                        )
                        with desk_failures():
                            wiring.complete(launch.env)
                        end, process, tail = await self._run(
                            launch,
                            request,
                            log,
                            info,
                            claim,
                            (translator, session),
                            channel,
                            usage,
                        )
                finally:
                    shutil.rmtree(socket_dir, ignore_errors=True)
                    if git is not None:
                        told = await _hand_back(folder, git, info.attempt, request.execution)
                        log.write(scrub(f"{told}\n") if told else "")
        output, cut = final_output(translator, request.output_chars) or (tail.text(), tail.cut)
        failure = usage.stop_reason(channel.usage) or translator.failure
        if end == AgentEnd.EXITED and translator.deferred and not channel.deferred:
            failure = failure or (
                "The agent's CLI deferred a call that codedesk did not defer (another hook of "
                "its settings?); the job cannot resume it."
            )
        failed = end == AgentEnd.EXITED and failure
        suspended = end == AgentEnd.EXITED and translator.deferred and not failure
        if suspended:
            with log_path.open("a", encoding="utf-8") as log:
                log.write(f"codedesk: suspended until approval {channel.deferred} settles\n")
        return AgentResult(
            end=AgentEnd.FAILED if failed else AgentEnd.SUSPENDED if suspended else end,
            reason=scrub(failure or ""),
            exit_code=_exit_code(process.returncode, confined),
            output=scrub(output),
            output_cut=cut,
            log_path=str(log_path),
            attempts=claim.run,
            resumed=session.resumed,
            started_over=session.started_over,
            confinement=self.sandbox.mode,
            tool_calls=channel.calls,
            instructions=given.used,
            usage=usage.total(channel.usage),
            deferred_approval=channel.deferred if suspended else "",
            session_id=session.session_id if suspended else "",
            setup=await setup_now(self.client, request.repo),
        )

    def _rules(
        self, request: RunAgentInput, translator: OutputTranslator, git: AgentGit | None = None
    ) -> ChannelRules:
        # The job's hold classes and tools are the desk's host policy (desk/policy/host.py):
        # empty classes mean all of them, so no fallback to this worker's own may narrow them.
        return ChannelRules(
            worktree=request.worktree,
            hold_classes=tuple(request.hold_classes),
            hold_tools=tuple(request.hold_tools),
            wait=self.settings.hold_wait,
            preview_chars=self.settings.hold_preview_chars,
            max_request_bytes=self.settings.hold_request_bytes,
            branch_ref=str(git.refs / git.leaf) if git else "",
            live_wait=self._live_wait(request, translator),
        )

    def _live_wait(self, request: RunAgentInput, translator: OutputTranslator) -> timedelta | None:
        """How long a held call waits before the agent is suspended: only a job that can
        suspend, whose CLI is Claude Code in print mode with its JSON stream (which says whether
        it can defer), and never longer than the hold wait; None: no suspension."""
        live = self.settings.hold_live_wait
        if not request.may_defer or not live or not isinstance(translator, ClaudeStream):
            return None
        return min(live, self.settings.hold_wait)

    async def _run(
        self,
        launch: Launch,
        request: RunAgentInput,
        log: TextIO,
        info: activity.Info,
        claim: AgentClaim,
        readers: tuple[OutputTranslator, SessionWatch],
        channel: HoldChannel,
        usage: UsageWatch,
    ) -> tuple[AgentEnd, asyncio.subprocess.Process, _Tail]:
        # Confined, the agent waits at the gate until bwrap is bound to this worker's life;
        # unconfined, the reaper binds itself (see their modules).
        confined = launch.confinement == BWRAP
        try:
            process, gate = await spawn(launch, request.worktree)
        finally:
            claim.close()  # started (or not): a later attempt may now kill it and start its own
        channel.watch(process.pid, launch.argv[launch.command_at :], confined=confined)
        await open_gate(process, gate)
        tail = _Tail(request.output_chars)
        every = heartbeat_interval(info.heartbeat_timeout, self.settings.agent_progress_interval)
        texts = AgentTexts(self.settings.progress_text_chars, self.settings.progress_text_max)
        end = await _supervise(process, log, tail, every, readers, channel, usage, confined, texts)
        return end, process, tail

    def _not_started(self, program: str, log_path: Path, attempt: int) -> AgentResult:
        return AgentResult(
            end=AgentEnd.NOT_STARTED,
            exit_code=NOT_FOUND_EXIT,
            reason=(
                f"The agent command {program!r} could not be started: it is not an executable "
                "program on the worker's PATH."
            ),
            log_path=str(log_path),
            attempts=attempt,
            confinement=self.sandbox.mode,
        )

    def _agent_git(self, request: RunAgentInput) -> AgentGit:
        receipt = job_dir(self.settings, request.number) / WORKTREE_RECEIPT
        if not receipt.is_file():
            raise SandboxError(
                f"Job {request.number} has no worktree receipt ({receipt}), so its branch "
                "cannot be given to the sandboxed agent; start the job again."
            )
        layout = agent_git(receipt.parent, Worktree.model_validate_json(receipt.read_text()))
        prepare(layout)
        return layout

    def _egress_proxy(
        self, socket: Path | None, log: TextIO, traffic: Traffic
    ) -> contextlib.AbstractAsyncContextManager[None]:
        """Serve the agent's way out on `socket` while it runs (none: it has no network)."""
        if socket is None:
            return contextlib.nullcontext()

        def refused(line: str) -> None:
            log.write(f"codedesk: {line}\n")
            log.flush()

        frontend = self.client.service_client.config.target_host
        return serve_egress(socket, egress_policy(self.settings, frontend), refused, traffic)


async def _hand_back(folder: Path, git: AgentGit, attempt: int, execution: int) -> str:
    """Take the agent's branch back, unless a later attempt has started the agent again: its
    own preparation took back what this one left, and its agent works in the folders now."""
    claim = await AgentClaim.latest(folder, attempt, execution)
    if claim is None:
        return "codedesk: a later attempt runs the agent now; it took this attempt's branch back."
    with contextlib.closing(claim):
        return await off_the_loop(_take_back, git)


def _take_back(git: AgentGit) -> str:
    told = take_back(git)
    clean(git)
    return told


def heartbeat_interval(heartbeat_timeout: timedelta | None, progress: timedelta) -> float:
    """Seconds between heartbeats: often enough to stay alive and to show the agent's lines."""
    alive = heartbeat_timeout.total_seconds() / 3 if heartbeat_timeout else 10.0
    return min(alive, progress.total_seconds())


def _exit_code(code: int | None, confined: bool) -> int | None:
    """bwrap reports an agent killed by signal N as 128+N; say it as Python does (-N)."""
    if confined and code is not None and 128 < code < 128 + 65:
        return -(code - 128)
    return code


class _Tail:
    """The last `limit` characters of the output, and how many earlier ones were cut."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: deque[str] = deque()
        self.size = 0
        self.cut = 0
        self.lines: deque[str] = deque(maxlen=TAIL_LINES)
        self.lines_total = 0

    def add(self, text: str) -> None:
        self.chunks.append(text)
        self.size += len(text)
        lines = text.rstrip("\n").split("\n")
        self.lines.extend(lines)
        self.lines_total += len(lines)
        while self.size - len(self.chunks[0]) >= self.limit:
            dropped = self.chunks.popleft()
            self.size -= len(dropped)
            self.cut += len(dropped)

    def text(self) -> str:
        whole = "".join(self.chunks)
        extra = max(0, len(whole) - self.limit)
        self.cut += extra
        return whole[extra:]


async def _supervise(
    process: asyncio.subprocess.Process,
    log: TextIO,
    tail: _Tail,
    every: float,
    readers: tuple[OutputTranslator, SessionWatch],
    channel: HoldChannel,
    usage: UsageWatch,
    confined: bool,
    texts: AgentTexts,
) -> AgentEnd:
    """Copy output to the log and heartbeat until the agent's own process exits.

    The agent runs under bubblewrap (as the last process of its PID namespace) or the reaper,
    so what it left behind dies when it exits: a background process holding its output
    cannot keep the job running. Cancellation kills the whole group.
    """
    assert process.stdout is not None

    # The log and the tail get the output scrubbed as a stream (a key block or a wrapped token
    # held back until it is whole), before the cap cuts it, so no cut keeps part of a secret.
    scrubber = StreamScrubber()
    translator, session = readers

    def details() -> AgentHeartbeat:
        return AgentHeartbeat(
            pgid=process.pid,
            last_lines=[scrub(x) for x in tail.lines],
            tool_calls=channel.calls,
            lines_total=tail.lines_total,
            session_id=session.session_id,
            resumed=session.resumed,
            started_over=session.started_over,
            texts=list(texts.kept),
            texts_total=texts.total,
            usage=usage.total(channel.usage),
        )

    def show(text: str) -> None:
        if text:
            log.write(text)
            log.flush()
            tail.add(text)

    def emit(text: str, end: bool = False) -> None:
        usage.feed(text)
        if session.feed(text):
            activity.heartbeat(details())  # at once: a crash from now on resumes the session
        for line in translator.finish() if end else translator.feed(text):
            show(scrubber.feed(line))
        channel.can_defer = translator.defers
        texts.take(translator.texts)
        if end:
            show(scrubber.flush())

    async def pump() -> None:
        # Read chunks, not readline(): a line longer than the stream limit (64 KiB) would end
        # the pump, and the agent would block on a full pipe until its budget ran out.
        assert process.stdout is not None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        while chunk := await process.stdout.read(READ_CHUNK):
            channel.heard(len(chunk))  # output is a sign of work beside a waiting hold
            pending += decoder.decode(chunk)
            *complete, pending = pending.split("\n")
            for line in complete:
                emit(line + "\n")
            if translator.give_up or usage.stop_reason(channel.usage):
                await kill_group(process.pid, grace=0.2)
            if len(pending) >= READ_CHUNK:
                # A very long line goes out in pieces, cut at whitespace where it can be so a
                # credential (which has none) stays whole for the scrubber.
                cut = max(pending.rfind(" "), pending.rfind("\t")) + 1 or len(pending)
                emit(pending[:cut])
                pending = pending[cut:]
        pending += decoder.decode(b"", final=True)
        if pending:
            emit(pending)
        emit("", end=True)

    async def beat() -> None:
        # One at once: the heartbeat timeout runs from the activity's start, and a sandboxed
        # start (the job's git prepared, bwrap bound to the worker) can take most of a short
        # one on a loaded machine; the agent ran again beside a stale attempt when it did.
        while True:
            if usage.stop_reason(channel.usage):  # a report on the hold channel reached it
                await kill_group(process.pid, grace=0.2)
            activity.heartbeat(details())
            await asyncio.sleep(every)

    pumping = asyncio.create_task(pump())
    beating = asyncio.create_task(beat())
    end = AgentEnd.EXITED
    try:
        await process.wait()
    except asyncio.CancelledError:
        await kill_group(process.pid)
        await process.wait()
        if not _stopped_by_its_job():
            pumping.cancel()
            raise
        # The job stopped it (its budget ran out, or the job was cancelled): the run ends with
        # a result, so what the agent said and spent until then reaches the job's report.
        end = AgentEnd.TIMED_OUT
    finally:
        beating.cancel()
    # Whatever the agent left running in its group (a grandchild) dies with it. Confined, that
    # is done: bwrap exits only once its PID namespace is empty (its init's exit waits for
    # every process of it), and the group holds at most bwrap's own zombie, whose look would
    # cost a walk of /proc in a thread at every job's end (issue 13).
    if not confined:
        await kill_group(process.pid, grace=0.2)
    try:
        await asyncio.wait_for(pumping, timeout=5)
    except TimeoutError:
        pumping.cancel()
    return end


def _stopped_by_its_job() -> bool:
    """Whether this activity was cancelled because its job asked (not a worker shutting down,
    a timeout or a lost activity: those must stay cancellations so the attempt is retried)."""
    details = activity.cancellation_details()
    return details is not None and details.cancel_requested and not details.worker_shutdown
