"""Run an owner's set-up or check command in a job's worktree, in the agent's own sandbox.

The same launch as the agent (activities/agent/process/launch.py): its environment without the
owner's authority, its home and bubblewrap's confinement, but no hold channel and no git of its own
(the command may read and write the worktree's files, never commit). Killed with its whole
group on a timeout or a cancellation; output scrubbed, logged whole and kept as a capped tail.
"""

from __future__ import annotations

import asyncio
import codecs
import shutil
import tempfile
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TextIO

from temporalio import activity

from activities.agent.process.launch import JobPaths, plan_launch
from activities.agent.process.spawn import open_gate, spawn
from activities.sandbox.processes import kill_group
from desk.config.settings import DeskSettings
from desk.payloads.jobs import RunAgentInput
from desk.records.repo_setup import CheckStatus, CommandRun
from desk.scrub import StreamScrubber

SHELL = "/bin/sh"
READ_CHUNK = 1 << 16
BEAT_SECONDS = 5.0


@dataclass(frozen=True)
class Confined:
    """Where and how: the host's settings, the sandbox mode, the job and its folder."""

    settings: DeskSettings
    mode: str
    number: int
    repo: str
    worktree: Path
    folder: Path


async def run_confined(
    where: Confined, command: str, timeout: timedelta, log: TextIO, tail_chars: int
) -> CommandRun:
    """Run `command` with `sh -c` in the worktree, confined as the agent is."""
    request = RunAgentInput(
        number=where.number,
        repo=where.repo,
        task="",
        agent_command=command,
        worktree=str(where.worktree),
    )
    sockets = Path(tempfile.mkdtemp(prefix="codedesk-setup-"))
    try:
        paths = JobPaths(where.folder, sockets / "no-holds.sock", None)
        launch = plan_launch(
            where.settings, where.mode, request, [SHELL, "-c", command], paths, 1, None
        )
        spawned = await spawn(launch, str(where.worktree))
        await open_gate(spawned)
        process = spawned.process
        text, cut, timed_out = await _supervise(process, timeout, log, tail_chars)
    finally:
        shutil.rmtree(sockets, ignore_errors=True)
    code = process.returncode
    if timed_out:
        status = CheckStatus.TIMED_OUT
    else:
        status = CheckStatus.PASSED if code == 0 else CheckStatus.FAILED
    return CommandRun(
        command=command,
        status=status,
        exit_code=None if timed_out else code,
        output=text,
        output_cut=cut,
    )


async def _supervise(
    process: asyncio.subprocess.Process, timeout: timedelta, log: TextIO, tail_chars: int
) -> tuple[str, int, bool]:
    """Copy output to the log until the command exits or its time is up; heartbeat meanwhile."""
    assert process.stdout is not None
    stdout = process.stdout
    scrubber = StreamScrubber()
    seen: list[str] = []

    def show(text: str) -> None:
        if text:
            log.write(text)
            log.flush()
            seen.append(text)

    async def pump() -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while chunk := await stdout.read(READ_CHUNK):
            show(scrubber.feed(decoder.decode(chunk)))
        show(scrubber.feed(decoder.decode(b"", final=True)))
        show(scrubber.flush())

    async def beat() -> None:
        while True:
            activity.heartbeat(process.pid)
            await asyncio.sleep(BEAT_SECONDS)

    beating = asyncio.create_task(beat())
    timed_out = False
    try:
        await asyncio.wait_for(asyncio.gather(pump(), process.wait()), timeout.total_seconds())
    except TimeoutError:
        timed_out = True
    except asyncio.CancelledError:
        await kill_group(process.pid)
        await process.wait()
        raise
    finally:
        beating.cancel()
        await kill_group(process.pid, grace=0.2)
    if timed_out:
        await process.wait()
    whole = "".join(seen)
    cut = max(0, len(whole) - tail_chars)
    return whole[cut:], cut, timed_out
