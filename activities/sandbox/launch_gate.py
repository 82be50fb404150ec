"""The sandboxed agent starts only once bubblewrap is bound to the worker's life.

bwrap's `--die-with-parent` has the kernel kill bwrap when the worker dies, but bwrap asks for
it a moment after it starts: a worker killed in that moment would leave a sandbox running that
nobody watches. Setting the death signal in the forked child (`preexec_fn`) closed that gap,
but it forces a full fork of the worker (8 ms of every job with a 200 MB worker, issue 13), and
`preexec_fn` is not safe in a process with threads. Instead, bwrap writes `--info-fd` right
after it has set its death signal; only then does the worker open the gate: one line on the
sandbox's standard input, which a shell inside reads before it becomes the agent (whose input is
`/dev/null`, as it always was). A worker that died first never writes that line, the pipe
closes, and the shell exits without starting the agent. An agent that takes its input on its
standard input (Claude Code's streaming input) keeps the pipe after the line: the worker writes
its messages there (`keep_input`), and closing it is the input's end.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field

GATE_SHELL = "/bin/sh"
INFO_END = b"}"
"""bwrap's info is one JSON object: once its closing brace is read, the death signal is set."""


@dataclass
class LaunchGate:
    """The two pipes of one start: bwrap's info to the worker, the worker's go to the shell."""

    info_read: int
    info_write: int
    gate_read: int
    gate_write: int
    keep_input: bool = False
    """The agent reads its input from the gate's pipe after the line (the worker keeps its end
    open: `input_fd`); else its input is `/dev/null`."""
    _closed: set[int] = field(default_factory=set)

    @classmethod
    def create(cls, keep_input: bool = False) -> LaunchGate:
        info_read, info_write = os.pipe()
        gate_read, gate_write = os.pipe()
        return cls(info_read, info_write, gate_read, gate_write, keep_input)

    @property
    def inherited(self) -> tuple[int]:
        """The descriptor bwrap must inherit besides its standard input (`gate_read`)."""
        return (self.info_write,)

    def gated(self, bwrap: list[str], command_at: int) -> list[str]:
        """`bwrap ... command` (the command from `command_at` on) with bwrap telling its start
        and the command held at the gate.

        The agent inherits neither pipe: bwrap closes its info descriptor, and the shell gives
        the agent `/dev/null` for input, or (`keep_input`) the rest of the gate's pipe: `read`
        takes no byte past its line from a pipe.
        """
        hold = 'read -r _ && exec "$@"' if self.keep_input else 'read -r _ && exec "$@" </dev/null'
        return [
            bwrap[0],
            "--info-fd",
            str(self.info_write),
            *bwrap[1:command_at],
            GATE_SHELL,
            "-c",
            hold,
            "codedesk-gate",
            *bwrap[command_at:],
        ]

    def started(self) -> None:
        """After the spawn: the child's ends are the child's alone."""
        self._close(self.info_write)
        self._close(self.gate_read)

    async def open_when_bound(self) -> bool:
        """Wait until bwrap says its death signal is set, then let the agent start.

        False when bwrap ended before it said so: the gate stays shut.
        """
        loop = asyncio.get_running_loop()
        told: asyncio.Future[bool] = loop.create_future()
        seen = bytearray()
        os.set_blocking(self.info_read, False)

        def readable() -> None:
            try:
                chunk = os.read(self.info_read, 4096)
            except BlockingIOError:
                return
            seen.extend(chunk)
            if not told.done() and (not chunk or INFO_END in seen):
                told.set_result(INFO_END in seen)

        loop.add_reader(self.info_read, readable)
        try:
            bound = await told
            if bound:
                os.write(self.gate_write, b"go\n")
        except BrokenPipeError:  # the sandbox ended before its command started
            bound = False
        finally:
            loop.remove_reader(self.info_read)
            if bound and self.keep_input:
                self._close(self.info_read)
            else:
                self.close()
        return bound

    def input_fd(self) -> int | None:
        """The worker's end of the agent's input, once the gate opened (`keep_input`); the
        caller closes it. None: the agent's input is `/dev/null`, or the gate stayed shut."""
        if not self.keep_input or self.gate_write in self._closed:
            return None
        self._closed.add(self.gate_write)
        return self.gate_write

    def close(self) -> None:
        """Close every end still open here (an unopened gate stays shut for good)."""
        for fd in (self.info_read, self.info_write, self.gate_read, self.gate_write):
            self._close(fd)

    def _close(self, fd: int) -> None:
        if fd not in self._closed:
            self._closed.add(fd)
            os.close(fd)
