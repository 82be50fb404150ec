"""One look at an agent's process tree from /proc: its CPU time, and which processes work."""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from activities.sandbox.processes import proc_stats

TICKS = os.sysconf("SC_CLK_TCK")
CHILDREN_LISTED = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists()
"""Whether the kernel lists each thread's children (CONFIG_PROC_CHILDREN): a look then reads
the tree's own few files instead of the stat of every process on the host."""


@dataclass(frozen=True)
class TreeLook:
    """What one look saw."""

    cpu_seconds: float
    """CPU time of the tree's live processes and of the children they reaped."""
    working: tuple[int, ...]
    """Live processes that are neither a waiting hook, an ancestor of one, nor the relay."""


def look_at_tree(root: int, hooks: Collection[int], relay: bytes = b"") -> TreeLook:
    """Look at `root` and its descendants (a tree, not a group: a sandboxed agent is in a new
    session, and a process that left the group is still a descendant).

    `hooks` are the processes waiting on a hold now. Their ancestors wait for them (the
    agent's CLI, the shell it ran the hook in, the sandbox), so they are not counted as
    working by being there; their CPU still counts. `relay` is the command line (NUL
    separated) of the sandbox's egress forwarder, whose relay lives beside the agent and
    whose work is the agent's traffic, counted at the proxy.
    """
    stats = tree_stats(root)
    parents = {pid: int(fields[1]) for pid, fields in stats.items()}
    ticks = sum(sum(int(value) for value in fields[11:15]) for fields in stats.values())
    waiting: set[int] = set()
    for hook in hooks:
        pid = hook
        while pid in stats and pid not in waiting:
            waiting.add(pid)
            if pid == root:
                break
            pid = parents[pid]
    working = [
        pid
        for pid, fields in stats.items()
        if pid not in waiting and fields[0] != "Z" and not (relay and _command(pid) == relay)
    ]
    return TreeLook(cpu_seconds=ticks / TICKS, working=tuple(sorted(working)))


def tree_stats(root: int) -> dict[int, list[str]]:
    """The stat fields (after the command name) of `root` and of each of its descendants."""
    if not CHILDREN_LISTED:
        return tree_stats_by_scan(root)
    found: dict[int, list[str]] = {}
    pending = [root]
    while pending:
        pid = pending.pop()
        fields = _stat(pid)
        if fields is None or pid in found:
            continue  # it exited meanwhile (its children, if any, moved up to a reaper)
        found[pid] = fields
        pending.extend(_children(pid))
    return found


def tree_stats_by_scan(root: int) -> dict[int, list[str]]:
    stats = {pid: fields for pid, fields in proc_stats() if len(fields) > 14}
    children: dict[int, list[int]] = {}
    for pid, fields in stats.items():
        children.setdefault(int(fields[1]), []).append(pid)
    found: dict[int, list[str]] = {}
    pending = [root]
    while pending:
        pid = pending.pop()
        if pid in stats and pid not in found:
            found[pid] = stats[pid]
            pending.extend(children.get(pid, ()))
    return found


def _stat(pid: int) -> list[str] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: fields start after the last ')'.
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields if len(fields) > 14 else None


def _children(pid: int) -> list[int]:
    """The children of `pid` as the kernel lists them, thread by thread (a child belongs to
    the thread that forked it)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for thread in threads:
        try:
            listed = Path(f"/proc/{pid}/task/{thread}/children").read_text()
        except OSError:
            continue
        found += [int(child) for child in listed.split()]
    return found


def _command(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
