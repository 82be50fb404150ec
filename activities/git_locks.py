"""Git's lock files: tell one a killed git left behind from one a live git holds."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

_LOCK_IN_MESSAGE = re.compile(r"Unable to create '(?P<path>[^']+\.lock)': File exists")

STALE_MARGIN_SECONDS = 2.0
"""A lock counts as older than the step only by more than this (file times are coarse)."""

_step_started: ContextVar[float | None] = ContextVar("git_step_started", default=None)
"""When the running git step began (wall clock, this host); unset outside a step."""


@contextmanager
def git_step() -> Iterator[None]:
    """Mark the start of a git step: a lock older than it may be a killed git's leftover."""
    token = _step_started.set(time.time())
    try:
        yield
    finally:
        _step_started.reset(token)


def lock_named_in(message: str) -> Path | None:
    """The lock file a failed git names as already existing, if any."""
    found = _LOCK_IN_MESSAGE.search(message)
    return Path(found.group("path")) if found else None


def remove_stale_lock(lock: Path) -> bool:
    """Remove `lock` if a killed git left it: older than this step and open in no process.

    Fails closed: outside a step, when the lock is newer than the step, when some process has
    it open, or when that cannot be told (no /proc), the lock stays and False is returned.
    """
    if not lock.exists():
        return True  # gone meanwhile: whoever held it is done
    if not left_behind(lock):
        return False
    try:
        lock.unlink()
    except FileNotFoundError:
        pass
    return True


def left_behind(lock: Path) -> bool:
    """Whether `lock` is a killed git's leftover (see `remove_stale_lock`), without removing
    it; False when it may belong to a git still at work, or is gone."""
    started = _step_started.get()
    if started is None:
        return False
    try:
        if lock.stat().st_mtime >= started - STALE_MARGIN_SECONDS:
            return False
    except FileNotFoundError:
        return False
    return not _held_open(lock)


def _held_open(path: Path) -> bool:
    """Whether any process this user can see has `path` open (True when that is unknowable)."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return True
    wanted = os.path.realpath(path)
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue  # gone, or another user's process (git runs as us)
        for fd in fds:
            try:
                if os.readlink(fd) == wanted:
                    return True
            except OSError:
                continue
    return False
