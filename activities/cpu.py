"""CPU time of a process group, read from /proc: how the hold channel tells work from waiting."""

from __future__ import annotations

import os
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")


def group_cpu_seconds(pgid: int) -> float:
    """CPU seconds used by the live members of group `pgid` and their reaped children."""
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # it exited meanwhile
        # The command name may hold spaces and parentheses: fields start after the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 14 and fields[2] == str(pgid):
            ticks += sum(int(value) for value in fields[11:15])
    return ticks / TICKS
