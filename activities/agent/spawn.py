"""Starting a planned launch (the agent, or a set-up or check command) as a process group.

Confined, the process waits at the launch gate until bwrap is bound to this worker's life
(activities/sandbox/launch_gate.py); unconfined, the reaper binds itself.
"""

from __future__ import annotations

import asyncio
import subprocess

from activities.agent.launch import Launch
from activities.sandbox.bubblewrap import BWRAP
from activities.sandbox.launch_gate import LaunchGate
from activities.sandbox.processes import kill_group


async def spawn(launch: Launch, cwd: str) -> tuple[asyncio.subprocess.Process, LaunchGate | None]:
    """The launch's process, in a session of its own, its output piped; and its gate, if any."""
    gate = LaunchGate.create() if launch.confinement == BWRAP else None
    try:
        process = await asyncio.create_subprocess_exec(
            *(gate.gated(launch.argv, launch.command_at) if gate else launch.argv),
            cwd=cwd,
            env=launch.env,
            stdin=gate.gate_read if gate else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=gate.inherited if gate else (),
        )
    except BaseException:
        if gate:
            gate.close()
        raise
    return process, gate


async def open_gate(process: asyncio.subprocess.Process, gate: LaunchGate | None) -> None:
    """Let a confined process go on once bwrap is bound; cancelled meanwhile, kill its group."""
    if gate is None:
        return
    gate.started()
    try:
        await gate.open_when_bound()
    except asyncio.CancelledError:
        await kill_group(process.pid)
        await process.wait()
        raise
