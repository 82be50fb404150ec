"""The work clock beside waiting holds: which of the hold channel's samples count as work.

While a hold waits, the job's clock stands still and the hold channel samples the agent once
a second. A sample counts as work unless the agent shows no sign of it since the last one: no
CPU of its tree above a small share, no process in its tree but the waiting hooks, their
ancestors and the sandbox's relay, no bytes through its egress proxy, no output.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

from activities.sandbox.bubblewrap import perl_forwarder, python_forwarder
from activities.sandbox.egress_proxy import Traffic
from activities.sandbox.tree import look_at_tree

SAMPLE_SECONDS = 1.0
"""How often the channel samples the agent while a hold waits."""
BUSY_SHARE = 0.1
"""An agent that used more than this share of a CPU over a sample was working, not blocked."""
PEERCRED = struct.Struct("3i")


class _Socket(Protocol):
    def getsockopt(self, level: int, option: int, size: int, /) -> bytes: ...


@dataclass(frozen=True)
class _Marks:
    at: float
    cpu: float
    traffic: int
    output: int


class BesideHolds:
    """The signs of work of one agent, and the samples taken of them."""

    def __init__(self) -> None:
        self.root: int | None = None
        self.relay = b""
        self.hooks: Counter[int] = Counter()
        self.traffic = Traffic()
        self.output_bytes = 0
        self.why: tuple[str, ...] = ()
        """The signs of work the last sample saw: cpu, processes, egress, output."""
        self.working: tuple[int, ...] = ()
        """The processes the last sample saw working beside the hooks."""
        self._last: _Marks | None = None

    def watch(self, pid: int, command: Sequence[str] = ()) -> None:
        """Watch process `pid` and its descendants; `command` is what runs inside the sandbox,
        and when it is the egress forwarder, its relay (which keeps that command line) is
        known by it."""
        self.root = pid
        forwarders = (perl_forwarder(), python_forwarder())
        relayed = any(list(command[: len(forwarder)]) == forwarder for forwarder in forwarders)
        self.relay = b"".join(part.encode() + b"\0" for part in command) if relayed else b""

    @contextmanager
    def hook_waiting(self, pid: int) -> Iterator[None]:
        """Process `pid` (0: unknown) waits on a hold for the block's duration."""
        self.hooks[pid] += 1
        try:
            yield
        finally:
            self.hooks[pid] -= 1
            if not self.hooks[pid]:
                del self.hooks[pid]

    def pause(self) -> None:
        """No hold waits: the job's own clock runs, and the next sample starts afresh."""
        self._last = None

    async def sample(self, now: float) -> float:
        """The seconds since the last sample when they were work, else 0 (also for the first
        sample of a wait, which only marks where the agent stands)."""
        if self.root is None:
            return 0.0
        hooks = [pid for pid in self.hooks if pid > 0]
        look = await asyncio.to_thread(look_at_tree, self.root, hooks, self.relay)
        marks = _Marks(now, look.cpu_seconds, self.traffic.bytes, self.output_bytes)
        last, self._last = self._last, marks
        if last is None:
            self.why, self.working = (), ()
            return 0.0
        seconds = max(now - last.at, 0.0)
        why = []
        if marks.cpu - last.cpu > BUSY_SHARE * seconds:
            why.append("cpu")
        self.working = look.working
        if look.working:
            why.append("processes")
        if marks.traffic != last.traffic:
            why.append("egress")
        if marks.output != last.output:
            why.append("output")
        self.why = tuple(why)
        return seconds if why else 0.0


def peer_pid(sock: _Socket | None) -> int:
    """The process at the other end of a Unix socket as this worker sees it (the kernel
    translates a sandboxed hook's pid into our namespace), or 0 when it cannot be told."""
    if sock is None:
        return 0
    try:
        pid, _, _ = PEERCRED.unpack(
            sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, PEERCRED.size)
        )
    except (OSError, AttributeError, struct.error):
        return 0
    return int(pid)
