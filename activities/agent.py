"""The `run_agent` activity: the coding agent as a process group in the job's worktree."""

from __future__ import annotations

import asyncio
import codecs
import json
import os
import shlex
import subprocess
import sys
from collections import deque
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TextIO

from pydantic import BaseModel
from temporalio import activity

from activities.agent_log import AGENT_LOG
from activities.agent_stream import OutputTranslator, final_output, translator_for
from activities.failures import desk_failures
from activities.paths import job_dir
from activities.processes import die_with_parent, kill_group, kill_stale_agents
from desk.agents import HOOK_SETTINGS, claude_hook_settings, guards_off_refusal
from desk.errors import AgentCommandError
from desk.models import AgentEnd, AgentResult, RunAgentInput
from desk.scrub import scrub
from desk.settings import DeskSettings

TAIL_LINES = 20
HOOK_SETTINGS_FILE = "hook-settings.json"
NOT_FOUND_EXIT = 127
READ_CHUNK = 1 << 16


class AgentHeartbeat(BaseModel):
    """Heartbeat details: the agent's process group and its last lines, for `describe`."""

    pgid: int
    last_lines: list[str]


def agent_argv(command: str, task: str) -> list[str]:
    """Split the agent command like a shell would and put the task where `{task}` stands."""
    try:
        parts = shlex.split(command)
    except ValueError as error:
        raise AgentCommandError(f"Agent command {command!r} cannot be split: {error}.") from None
    if not parts:
        raise AgentCommandError(
            "The agent command is empty: set CODEDESK_AGENT_COMMAND or pass --agent-command."
        )
    return [part.replace("{task}", task) for part in parts]


def _with_hook_settings(argv: list[str], job_folder: Path) -> list[str]:
    """Write the hold-hook settings file where the command asks for `{hook_settings}`."""
    if not any(HOOK_SETTINGS in part for part in argv):
        return argv
    hold = f"{shlex.quote(sys.executable)} -m surfaces.cli hold --format claude"
    path = job_folder / HOOK_SETTINGS_FILE
    job_folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(claude_hook_settings(hold), indent=2))
    return [part.replace(HOOK_SETTINGS, str(path)) for part in argv]


class AgentActivities:
    """Runs agents on this host; `address` is the Temporal address agents' hooks talk to."""

    def __init__(self, settings: DeskSettings, address: str) -> None:
        self.settings = settings
        self.address = address

    @activity.defn
    async def run_agent(self, request: RunAgentInput) -> AgentResult:
        """Run the agent until it exits, the deadline passes or the job is cancelled."""
        with desk_failures():
            argv = agent_argv(request.agent_command, request.task)
        info = activity.info()
        log_path = job_dir(self.settings, request.number) / AGENT_LOG
        argv = _with_hook_settings(argv, log_path.parent)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        killed = await kill_stale_agents(request.worktree)
        refusal = guards_off_refusal(argv, False, self.settings.unconfined_guards_off)
        remaining = None
        if request.deadline is not None:
            remaining = (request.deadline - datetime.now(UTC)).total_seconds()
        with log_path.open("a", encoding="utf-8") as log:
            log.write(f"=== codedesk: attempt {info.attempt} at {datetime.now(UTC):%H:%M:%S}Z")
            log.write(f"{' after killing a stale agent' if killed else ''} ===\n")
            if refusal is not None:
                log.write(f"codedesk: {refusal}\n")
                return AgentResult(
                    end=AgentEnd.NOT_STARTED,
                    reason=refusal,
                    log_path=str(log_path),
                    attempts=info.attempt,
                )
            if remaining is not None and remaining <= 0:
                return AgentResult(
                    end=AgentEnd.TIMED_OUT, log_path=str(log_path), attempts=info.attempt
                )
            try:
                process = await asyncio.create_subprocess_exec(
                    *argv,
                    cwd=request.worktree,
                    env=self._environment(request, info.attempt),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    preexec_fn=die_with_parent,
                )
            except OSError as error:
                log.write(f"codedesk: could not start {argv[0]!r}: {error}\n")
                return AgentResult(
                    end=AgentEnd.NOT_STARTED,
                    exit_code=NOT_FOUND_EXIT,
                    reason=f"The agent command {argv[0]!r} could not be started: {error.strerror}.",
                    log_path=str(log_path),
                    attempts=info.attempt,
                )
            tail = _Tail(request.output_chars)
            translator = translator_for(argv)
            end = await _supervise(
                process, log, tail, remaining, info.heartbeat_timeout, translator
            )
        output, cut = final_output(translator, request.output_chars) or (tail.text(), tail.cut)
        failed = end == AgentEnd.EXITED and translator.failure
        return AgentResult(
            end=AgentEnd.FAILED if failed else end,
            reason=scrub(translator.failure or ""),
            exit_code=process.returncode,
            output=scrub(output),
            output_cut=cut,
            log_path=str(log_path),
            attempts=info.attempt,
        )

    def _environment(self, request: RunAgentInput, attempt: int) -> dict[str, str]:
        # The agent gets none of codedesk's own settings (a future token among them).
        env = {
            name: value for name, value in os.environ.items() if not name.startswith("CODEDESK_")
        }
        env.update(
            {
                # Some CLIs (opencode) work in $PWD, not in their working directory.
                "PWD": request.worktree,
                "CODEDESK_TASK": request.task,
                "CODEDESK_JOB": str(request.number),
                "CODEDESK_REPO": request.repo,
                "CODEDESK_WORKTREE": request.worktree,
                "CODEDESK_TEMPORAL_ADDRESS": self.address,
                "CODEDESK_NAMESPACE": self.settings.namespace,
                # The hook's `codedesk hold` waits as long as the desk says, not its default.
                "CODEDESK_HOLD_WAIT": str(self.settings.hold_wait.total_seconds()),
                "CODEDESK_ATTEMPT": str(attempt),
                "CODEDESK_INTERRUPTED": "1" if attempt > 1 else "0",
            }
        )
        return env


class _Tail:
    """The last `limit` characters of the output, and how many earlier ones were cut."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: deque[str] = deque()
        self.size = 0
        self.cut = 0
        self.lines: deque[str] = deque(maxlen=TAIL_LINES)

    def add(self, text: str) -> None:
        self.chunks.append(text)
        self.size += len(text)
        self.lines.append(text.rstrip("\n"))
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
    remaining: float | None,
    heartbeat_timeout: timedelta | None,
    translator: OutputTranslator,
) -> AgentEnd:
    """Copy output to the log, heartbeat, and kill the group on deadline or cancellation."""
    assert process.stdout is not None
    every = (heartbeat_timeout.total_seconds() / 3) if heartbeat_timeout else 10.0

    def emit(text: str, end: bool = False) -> None:
        for line in translator.finish() if end else translator.feed(text):
            log.write(line)
            log.flush()
            # Scrub before the cap cuts the text, so a cut never keeps part of a credential.
            tail.add(scrub(line))

    async def pump() -> None:
        # Read chunks, not readline(): a line longer than the stream limit (64 KiB) would end
        # the pump, and the agent would block on a full pipe until its budget ran out.
        assert process.stdout is not None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pending = ""
        while chunk := await process.stdout.read(READ_CHUNK):
            pending += decoder.decode(chunk)
            *complete, pending = pending.split("\n")
            for line in complete:
                emit(line + "\n")
            if translator.give_up:
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
        while True:
            activity.heartbeat(
                AgentHeartbeat(pgid=process.pid, last_lines=[scrub(x) for x in tail.lines])
            )
            await asyncio.sleep(every)

    pumping = asyncio.create_task(pump())
    beating = asyncio.create_task(beat())
    try:
        await asyncio.wait_for(process.wait(), timeout=remaining)
        end = AgentEnd.EXITED
    except TimeoutError:
        await kill_group(process.pid)
        await process.wait()
        end = AgentEnd.TIMED_OUT
    except asyncio.CancelledError:
        await kill_group(process.pid)
        await process.wait()
        pumping.cancel()
        raise
    finally:
        beating.cancel()
    # Whatever the agent left running in its group (a grandchild) dies with it.
    await kill_group(process.pid, grace=0.2)
    try:
        await asyncio.wait_for(pumping, timeout=5)
    except TimeoutError:
        pumping.cancel()
    return end
