"""The `run_agent` activity: the coding agent as a process group in the job's worktree."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

from temporalio import activity
from temporalio.client import Client

from activities.agent.process.agent_git import AgentGit, agent_git, clean, prepare, take_back
from activities.agent.process.launch import (
    PRIVATE_HOME,
    SANDBOX_HOME,
    JobPaths,
    Launch,
    plan_launch,
    program_found,
)
from activities.agent.process.spawn import open_gate, spawn
from activities.agent.session.claim import AgentClaim
from activities.agent.session.log import AGENT_LOG
from activities.agent.session.opening import AFRESH, AFTER_CRASH
from activities.agent.session.run_messages import RunMessages
from activities.agent.session.session import (
    SessionWatch,
    adopt_session,
    earlier_attempts,
    resumable_codex,
)
from activities.agent.setup.agent_instructions import instructions_for, load_instructions
from activities.agent.setup.hold_wiring import wire_holds
from activities.agent.streams.codex_stream import CodexStream
from activities.agent.streams.stream import (
    ClaudeStream,
    OutputTranslator,
    final_output,
    translator_for,
)
from activities.agent.streams.texts import AgentTexts
from activities.agent.streams.usage import UsageWatch
from activities.agent.supervise import Tail, supervise
from activities.holds.channel import ChannelRules, HoldChannel, serve_holds
from activities.jobs.worktrees import WORKTREE_RECEIPT
from activities.off_loop import off_the_loop
from activities.sandbox.bubblewrap import BWRAP, choose_sandbox, log_choice
from activities.sandbox.egress_proxy import Traffic, egress_policy, serve_egress
from activities.sandbox.processes import kill_stale_agents
from activities.setup.steps import setup_now
from activities.shelf_paths import job_dir
from activities.surface import beating
from desk.agents.message_seams import seam_of
from desk.agents.presets import TASK, guards_off_refusal, preset_named_by, with_python
from desk.config.settings import DeskSettings
from desk.errors import AgentCommandError, SandboxError
from desk.failures import desk_failures
from desk.holds.protocol import SOCKET_NAME
from desk.payloads.agent_progress import RUN_AGENT
from desk.payloads.jobs import AgentEnd, AgentResult, RunAgentInput, Worktree
from desk.scrub import scrub

EGRESS_SOCKET = "egress.sock"
NOT_FOUND_EXIT = 127


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
        confined = self.sandbox.mode == BWRAP
        home = folder / (SANDBOX_HOME if confined else PRIVATE_HOME)
        earlier = earlier_attempts(info.heartbeat_details)
        known = earlier.session_id or request.resume_session or request.continue_session
        if request.session_from:  # a continuation: the finished job's session, here
            await asyncio.to_thread(
                adopt_session,
                job_dir(self.settings, request.session_from),
                home,
                request.continue_session,
                Path(request.worktree),
            )
        with desk_failures():
            wiring = wire_holds(agent_argv(request.agent_command, TASK), folder, self.settings)
            preset = preset_named_by(request.agent_command)
            talking = RunMessages(self.client, request, info.attempt, folder, seam_of(wiring.argv))
            # Asking the job may wait for a worker to take its workflow up again (after a crash,
            # the dead worker's sticky queue first): beat meanwhile, keeping the earlier
            # attempts' record, so the wait does not time this attempt out.
            await beating(talking.look_back(home, known), *info.heartbeat_details)
            # The task and the instructions in one pass, after the hook: a text that spells a
            # placeholder stays as it is.
            given = await asyncio.to_thread(
                instructions_for, self.settings, wiring.argv, preset, folder, talking.task()
            )
        argv, hook_file = talking.argv(given.argv), wiring.hook_file
        # Only under the job's claim: a stale attempt never starts an agent beside a later one.
        claimed = AgentClaim.take(folder, info.attempt, request.execution)
        with contextlib.closing(await claimed) as claim:
            # Only an agent the job started before can be stale: the first skips the /proc walk.
            killed = await kill_stale_agents(request.worktree) if claim.run > 1 else 0
            refusal = guards_off_refusal(argv, confined, self.settings.unconfined_guards_off)
            opened = talking.open(argv, info.attempt, claim.run, known, home)
            resumed = opened.resumed
            session = SessionWatch(
                known if resumed else "",
                earlier.resumed + (opened.interrupted and resumed),
                earlier.started_over + (opened.interrupted and not resumed),
            )
            command, argv = argv, opened.argv  # the command as given, and as this run starts
            translator = translator_for(argv)
            usage = UsageWatch.of(argv, self.settings, request.spend_limit, request.spent_before)
            with log_path.open("a", encoding="utf-8") as log:
                log.write(f"=== codedesk: attempt {claim.run} at {datetime.now(UTC):%H:%M:%S}Z")
                log.write(f"{' after killing a stale agent' if killed else ''}")
                log.write(f", sandbox {self.sandbox.mode} ===\n")
                if resumed:
                    resuming = session.session_id or "(the agent's last)"
                    why = "" if opened.start == AFTER_CRASH else f" {opened.start}"
                    log.write(f"codedesk: resuming session {resuming}{why}\n")
                wanted = request.resume_session or request.continue_session
                if wanted and not resumed and opened.start == AFRESH and not opened.interrupted:
                    log.write(f"codedesk: session {wanted} is gone; starting over\n")
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
                    folder,
                    socket_dir / SOCKET_NAME,
                    hook_file,
                    egress,
                    given.files,
                    given.env,
                    talking.file,
                )
                try:
                    rules = self._rules(request, translator, command, git)
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
                            (translator, session, talking),
                            channel,
                            usage,
                        )
                        # The set-up in force at the agent's end, read while its branch is
                        # taken back (setup_now never raises: a failed read is None).
                        setup_read = asyncio.create_task(setup_now(self.client, request.repo))
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
        # A CLI that cannot defer (codex) was ended by codedesk for its held call, its session
        # kept; it exits as its signal says, or as it chose on the note to stop.
        ended = channel.suspending.is_set() and bool(session.session_id)
        if ended and end == AgentEnd.EXITED:
            failure = usage.stop_reason(channel.usage)
        failed = end == AgentEnd.EXITED and failure
        deferred = translator.deferred or ended
        suspended = end == AgentEnd.EXITED and deferred and not failure
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
            session_id=session.session_id,
            ended_to_suspend=suspended and ended,
            spend_reached=bool(failed) and usage.reached(channel.usage),
            setup=await setup_read,
            messages_delivered=talking.delivered,
            message_seam=talking.delivered_by,
        )

    def _rules(
        self,
        request: RunAgentInput,
        translator: OutputTranslator,
        argv: list[str],
        git: AgentGit | None = None,
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
            live_wait=self._live_wait(request, translator, argv),
            ends_to_suspend=_ends_to_suspend(request, translator, argv),
        )

    def _live_wait(
        self, request: RunAgentInput, translator: OutputTranslator, argv: list[str]
    ) -> timedelta | None:
        """How long a held call waits before the agent is suspended: only a job that can
        suspend, whose CLI is Claude Code in print mode with its JSON stream (which says whether
        it can defer) or codex whose thread the job can resume (`_ends_to_suspend`), and never
        longer than the hold wait; None: no suspension."""
        live = self.settings.hold_live_wait
        if not request.may_defer or not live:
            return None
        if not isinstance(translator, ClaudeStream) and not _ends_to_suspend(
            request, translator, argv
        ):
            return None
        return min(live, self.settings.hold_wait)

    async def _run(
        self,
        launch: Launch,
        request: RunAgentInput,
        log: TextIO,
        info: activity.Info,
        claim: AgentClaim,
        readers: tuple[OutputTranslator, SessionWatch, RunMessages],
        channel: HoldChannel,
        usage: UsageWatch,
    ) -> tuple[AgentEnd, asyncio.subprocess.Process, Tail]:
        # Confined, the agent waits at the gate until bwrap is bound to this worker's life;
        # unconfined, the reaper binds itself (see their modules).
        confined = launch.confinement == BWRAP
        talking = readers[2]
        try:
            spawned = await spawn(launch, request.worktree, talking.takes_input)
        finally:
            claim.close()  # started (or not): a later attempt may now kill it and start its own
        process = spawned.process
        channel.watch(process.pid, launch.argv[launch.command_at :], confined=confined)
        input_fd = await open_gate(spawned)

        def note(line: str) -> None:
            log.write(f"{line}\n")
            log.flush()

        tail = Tail(request.output_chars)
        every = heartbeat_interval(info.heartbeat_timeout, self.settings.agent_progress_interval)
        texts = AgentTexts(self.settings.progress_text_chars, self.settings.progress_text_max)
        try:
            await talking.started(input_fd, channel, note)
            end = await supervise(
                process, log, tail, every, readers, channel, usage, confined, texts
            )
        finally:
            await talking.ended()
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


def _ends_to_suspend(request: RunAgentInput, translator: OutputTranslator, argv: list[str]) -> bool:
    """Whether a held call nobody answers in the live window ends the agent, its session kept:
    a job that can suspend so (`ends_to_suspend`), and codex's JSON events from a command whose
    thread `codex exec resume` can take up again."""
    if not (request.may_defer and request.ends_to_suspend):
        return False
    return isinstance(translator, CodexStream) and resumable_codex(argv)


def heartbeat_interval(heartbeat_timeout: timedelta | None, progress: timedelta) -> float:
    """Seconds between heartbeats: often enough to stay alive and to show the agent's lines."""
    alive = heartbeat_timeout.total_seconds() / 3 if heartbeat_timeout else 10.0
    return min(alive, progress.total_seconds())


def _exit_code(code: int | None, confined: bool) -> int | None:
    """bwrap reports an agent killed by signal N as 128+N; say it as Python does (-N)."""
    if confined and code is not None and 128 < code < 128 + 65:
        return -(code - 128)
    return code
