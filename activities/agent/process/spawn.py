"""Starting a planned launch (the agent, or a set-up or check command) as a process group.

Confined, the process waits at the launch gate until bwrap is bound to this worker's life
(activities/sandbox/launch_gate.py); unconfined, the reaper binds itself.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from dataclasses import dataclass

from activities.agent.process.launch import Launch
from activities.sandbox.bubblewrap import BWRAP
from activities.sandbox.launch_gate import LaunchGate
from activities.sandbox.processes import kill_group


@dataclass
class Spawned:
    """A started launch: its process, its gate (confined) and its input, if it takes one."""

    process: asyncio.subprocess.Process
    gate: LaunchGate | None
    input_fd: int | None = None
    """The worker's end of the process's standard input (unconfined; a confined one's comes
    from its gate once it opened), for an agent that reads its input there."""


async def spawn(launch: Launch, cwd: str, takes_input: bool = False) -> Spawned:
    """The launch's process, in a session of its own, its output piped; its input `/dev/null`
    or (`takes_input`) a pipe the worker writes."""
    gate = LaunchGate.create(keep_input=takes_input) if launch.confinement == BWRAP else None
    read_end, write_end = os.pipe() if takes_input and gate is None else (None, None)
    stdin: int = subprocess.DEVNULL
    if gate is not None:
        stdin = gate.gate_read
    elif read_end is not None:
        stdin = read_end
    try:
        process = await asyncio.create_subprocess_exec(
            *(gate.gated(launch.argv, launch.command_at) if gate else launch.argv),
            cwd=cwd,
            env=launch.env,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=gate.inherited if gate else (),
        )
    except BaseException:
        if gate:
            gate.close()
        if write_end is not None:
            os.close(write_end)
        raise
    finally:
        if read_end is not None:
            os.close(read_end)
    return Spawned(process, gate, write_end)


async def open_gate(spawned: Spawned) -> int | None:
    """Let a confined process go on once bwrap is bound; cancelled meanwhile, kill its group.
    The worker's end of the process's input, if it takes one (None: it does not, or the
    sandbox ended before its command started)."""
    process, gate = spawned.process, spawned.gate
    if gate is None:
        return spawned.input_fd
    gate.started()
    try:
        await gate.open_when_bound()
    except asyncio.CancelledError:
        await kill_group(process.pid)
        await process.wait()
        raise
    return gate.input_fd()
