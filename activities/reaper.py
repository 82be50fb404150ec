"""Runs an agent without a sandbox so that its whole process tree ends with it (stdlib only).

Usage: ``python -I -S reaper.py -- COMMAND [ARG ...]``. The reaper is a child subreaper: every
process the agent leaves behind, even one that started its own session, becomes the reaper's
child. When the agent exits, or the worker dies (the parent-death signal is SIGTERM here), or
the reaper is told to stop, it SIGKILLs that whole tree, then ends as the agent ended.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
EXIT_CANNOT_START = 127


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def _children_of(parent: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="utf-8", errors="replace") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if int(fields[1]) == parent and fields[0] != "Z":
            found.append(int(name))
    return found


def kill_tree() -> None:
    """SIGKILL every live descendant; orphans are our children, so this ends when none is."""
    me = os.getpid()
    while True:
        tree, frontier = [], [me]
        while frontier:
            children = _children_of(frontier.pop())
            tree += children
            frontier += children
        if not tree:
            return
        for pid in tree:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
        _reap_all()


def _reap_all() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, 0)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _stop(signum: int, _frame: object) -> None:
    kill_tree()
    os._exit(128 + signum)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print("reaper: no command given", file=sys.stderr)
        return 2
    parent = os.getppid()
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    if os.getppid() != parent:  # the worker died before the death signal was armed
        return 128 + signal.SIGTERM
    try:
        agent = os.posix_spawnp(argv[0], argv, dict(os.environ))
    except OSError as error:
        print(f"reaper: cannot run {argv[0]!r}: {error.strerror}", file=sys.stderr)
        return EXIT_CANNOT_START
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == agent:
            break
    kill_tree()
    if os.WIFSIGNALED(status):
        # End as the agent ended, so the worker reads the same signal it would have seen.
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
