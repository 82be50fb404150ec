"""Runs an agent without a sandbox so that its whole process tree ends with it (stdlib only).

Usage: ``python -I reaper.py --parent WORKER_PID -- COMMAND [ARG ...]``. The reaper is a child
subreaper: every process the agent leaves behind, even one that started its own session,
becomes the reaper's child. When the agent exits, or the worker dies (the parent-death signal
is SIGTERM here), or the reaper is told to stop, it SIGKILLs that whole tree, then ends as the
agent ended. It starts nothing unless the worker named is still its parent once that signal is
set.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
EXIT_CANNOT_START = 127
DYING_PAUSE = 0.005
"""Seconds between two looks when every process left has been sent SIGKILL already."""
CHILDREN_LISTED = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists()
"""Whether the kernel lists each thread's children (CONFIG_PROC_CHILDREN): a look at the tree
then reads a few small files, fast enough to catch a process that forks and exits without end,
instead of every process's stat."""


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def _descendants(root: int) -> list[int]:
    """The descendants of `root`, found by following each process's children.

    Only a glimpse: a process that exits during the look moves its children up to the reaper
    behind it, and one that forks adds children the look may not see. `kill_tree` looks again.
    """
    children = listed_children if CHILDREN_LISTED else children_by_scan()
    found, frontier = [], [root]
    while frontier:
        below = children(frontier.pop())
        found += below
        frontier += below
    return found


def listed_children(pid: int) -> list[int]:
    """The children of `pid` as the kernel lists them, thread by thread (zombies included)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []  # it exited meanwhile
    found = []
    for thread in threads:
        try:
            found += [
                int(child)
                for child in Path(f"/proc/{pid}/task/{thread}/children").read_text().split()
            ]
        except OSError:
            continue
    return found


def children_by_scan() -> Callable[[int], list[int]]:
    """Without the kernel's lists: the live processes by parent, from one pass over /proc."""
    by_parent: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # it exited meanwhile
        # The command name may hold spaces and parentheses: fields start after the last ')'.
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[0] != "Z":
            by_parent.setdefault(int(fields[1]), []).append(int(entry.name))
    return lambda pid: by_parent.get(pid, [])


def kill_tree() -> None:
    """SIGKILL every descendant, look after look, until the reaper has no child left.

    An orphan is the reaper's child, so a live descendant means a child: only "no child at all"
    proves the tree is gone (a look that finds nothing may have raced an exit). The reaper
    never blocks waiting for a child here, since one that was not seen yet would never end.
    """
    signalled: set[int] = set()
    while True:
        tree = _descendants(os.getpid())
        for pid in tree:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
        if not _reap_exited():
            return
        if signalled.issuperset(tree):
            time.sleep(DYING_PAUSE)  # only killed ones left: let them finish dying
        signalled.update(tree)


def _reap_exited() -> bool:
    """Reap every child that has ended; whether any child (alive or not yet dead) is left."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def _stop(signum: int, _frame: object) -> None:
    kill_tree()
    os._exit(128 + signum)


def main(argv: list[str]) -> int:
    worker, argv = _worker_and_command(argv)
    if worker is None or not argv:
        print("reaper: usage: reaper.py --parent WORKER_PID -- COMMAND [ARG ...]", file=sys.stderr)
        return 2
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    if os.getppid() != worker:
        # The worker died before the death signal was armed (even before the reaper ran, when
        # it would already be an orphan): nothing would end the agent with the worker.
        gone = f"reaper: the worker (pid {worker}) is gone; the agent was not started"
        print(gone, file=sys.stderr)
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


def _worker_and_command(argv: list[str]) -> tuple[int | None, list[str]]:
    """The worker's pid (``--parent PID``; None when not given) and the command after ``--``."""
    if argv[:1] != ["--parent"] or len(argv) < 3 or not argv[1].isdigit() or argv[2] != "--":
        return None, []
    return int(argv[1]), argv[3:]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
