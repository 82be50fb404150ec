"""CPU time of a process tree, read from /proc: how the hold channel tells work from waiting."""

from __future__ import annotations

import os

from activities.processes import proc_stats

TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(root: int) -> float:
    """CPU seconds used by process `root`, its live descendants and the children they reaped.

    A tree, not a process group: an agent in a sandbox (a new session) is still a descendant.
    """
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for pid, fields in proc_stats():
        if len(fields) > 14:
            parents[pid] = int(fields[1])
            ticks[pid] = sum(int(value) for value in fields[11:15])
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    total, pending = 0, [root]
    while pending:
        pid = pending.pop()
        total += ticks.get(pid, 0)
        pending.extend(children.get(pid, ()))
    return total / TICKS
