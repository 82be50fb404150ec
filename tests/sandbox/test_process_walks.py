"""Killing a stale agent walks /proc in a thread, never on the worker's event loop."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from activities.sandbox.processes import kill_stale_agents
from tests.helpers.waiting import PATIENCE

_readers: list[list[int]] = []
"""While a test watches: the thread of every file opened under /proc, one list per watcher."""


def _on_audit(event: str, args: tuple[Any, ...]) -> None:
    if _readers and event == "open" and str(args[0]).startswith("/proc/"):
        for reader in _readers:
            reader.append(threading.get_ident())


# Audit hooks cannot be removed: this one costs a list check while no test watches.
sys.addaudithook(_on_audit)


@contextmanager
def proc_readers() -> Iterator[list[int]]:
    """The threads that open files under /proc meanwhile (the audit hook runs in each)."""
    threads: list[int] = []
    _readers.append(threads)
    try:
        yield threads
    finally:
        _readers.remove(threads)


IGNORES_SIGTERM = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True)"
    "; time.sleep(600)"
)


async def test_killing_a_stale_agent_walks_proc_off_the_event_loop(tmp_path: Path) -> None:
    worktree = str(tmp_path / "worktree")
    # It ignores SIGTERM, so the killer also waits out its grace, watching the group in /proc.
    with subprocess.Popen(
        [sys.executable, "-c", IGNORES_SIGTERM],
        env={**os.environ, "CODEDESK_WORKTREE": worktree},
        start_new_session=True,
        stdout=subprocess.PIPE,
    ) as stale:
        assert stale.stdout is not None and stale.stdout.readline() == b"ready\n"
        loop_thread = threading.get_ident()
        try:
            with proc_readers() as threads:
                killed = await kill_stale_agents(worktree)
            assert killed == 1
            assert stale.wait(timeout=PATIENCE) == -signal.SIGKILL
        finally:
            stale.kill()
    assert threads, "the killer read nothing under /proc: the watch saw nothing"
    assert loop_thread not in threads, "the killer read /proc on the event loop's thread"
