"""Process groups for agents: kill a group, and find and kill stale agents."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path


async def kill_group(pgid: int, grace: float = 1.0) -> None:
    """SIGTERM the whole group, then SIGKILL whatever is left after `grace` seconds.

    In a thread: it walks /proc while it waits, which on the event loop would hold up every
    heartbeat, query and workflow task of the worker.
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return  # nothing left in the group (the usual end of an agent): no thread to start
    await asyncio.to_thread(_kill_group, pgid, grace)


def _kill_group(pgid: int, grace: float) -> None:
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    waited = 0.0
    while waited < grace and _live_members(pgid):
        time.sleep(0.05)
        waited += 0.05
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        return


def _live_members(pgid: int) -> bool:
    """Whether the group has a member that is not a zombie (zombies cannot be killed twice)."""
    return any(group == pgid and state != "Z" for _, group, state in _processes())


def proc_stats() -> Iterator[tuple[int, list[str]]]:
    """Each live process's id and the fields of its /proc stat after the command name.

    Fields: state, ppid, pgrp, session, ..., utime, stime, cutime, cstime at [11:15].
    """
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # it exited meanwhile
        # The command name may hold spaces and parentheses: fields start after the last ')'.
        yield int(entry.name), stat[stat.rfind(")") + 2 :].split()


def _processes() -> list[tuple[int, int, str]]:
    return [(pid, int(fields[2]), fields[0]) for pid, fields in proc_stats()]


def processes_with_env(name: str, value: str) -> list[int]:
    """Live processes whose environment has `name=value` (how a stale agent is recognised)."""
    wanted = f"{name}={value}".encode()
    own = os.getpid()
    matches = []
    for pid, _, state in _processes():
        if pid == own or state == "Z":
            continue
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if wanted in environ.split(b"\0"):
            matches.append(pid)
    return matches


async def kill_stale_agents(worktree: str) -> int:
    """Kill an earlier attempt's agent in `worktree`, its whole group and anything it left.

    A process counts as the worktree's agent only if its environment names that worktree, so
    a recycled process or group id never kills a stranger. Returns how many were found. The
    walk of /proc runs in a thread, off the worker's event loop.
    """
    return await asyncio.to_thread(_kill_stale_agents, worktree)


def _kill_stale_agents(worktree: str) -> int:
    stale = processes_with_env("CODEDESK_WORKTREE", worktree)
    groups = set()
    for pid in stale:
        try:
            groups.add(os.getpgid(pid))
        except ProcessLookupError:
            continue
    for group in groups:
        _kill_group(group, grace=0.5)
    for pid in stale:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
    return len(stale)
