"""The hold channel's wire protocol, shared by the hook and the worker: standard library only.

Per job, the worker writes a read-only hook config (`hold.json`) and serves a Unix socket
(`hold.sock`), both in the job's folder. The hook sends one JSON line per connection: a `hold`
request (it waits for one JSON line back) or a `tally` of calls it answered itself (no answer).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SOCKET_NAME = "hold.sock"
CONFIG_NAME = "hold.json"
JOB_ENV = "CODEDESK_JOB"
SOCKET_ENV = "CODEDESK_HOLD_SOCKET"

HOLD = "hold"
TALLY = "tally"

ANSWER_SLACK_SECONDS = 15.0
"""How much longer than the hold wait the hook waits for the worker's answer before it refuses."""

HOOK_MARGIN_SECONDS = 30
"""How much longer than the hold wait an agent's hook timeout must be (the hook's own start-up,
the answer slack above, and a busy machine)."""

MAX_WAIT_SECONDS = 7 * 24 * 3600.0
"""The longest hold wait the hook accepts from its config: anything longer is a bad config."""

UNIX_PATH_MAX = 100
"""Unix socket paths longer than this (the kernel's limit is 107 bytes) go through /proc."""


@dataclass(frozen=True)
class HookConfig:
    """What the hook needs to decide locally, written per job by the worker."""

    job: int
    worktree: str
    hold_classes: tuple[str, ...]
    hold_tools: tuple[str, ...]
    wait_seconds: float
    max_request_bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "job": self.job,
            "worktree": self.worktree,
            "hold_classes": list(self.hold_classes),
            "hold_tools": list(self.hold_tools),
            "wait_seconds": self.wait_seconds,
            "max_request_bytes": self.max_request_bytes,
        }

    @classmethod
    def from_json(cls, document: Any) -> HookConfig:
        """Read a config; anything odd is a ValueError (the hook then refuses)."""
        if not isinstance(document, dict):
            raise ValueError("the hook config is not a JSON object")
        job, wait = document.get("job"), document.get("wait_seconds")
        limit = document.get("max_request_bytes")
        if not isinstance(job, int) or isinstance(job, bool) or job < 1:
            raise ValueError("the hook config names no job number")
        if not isinstance(wait, int | float) or isinstance(wait, bool):
            raise ValueError("the hook config's wait is not a number")
        if not 0 <= wait <= MAX_WAIT_SECONDS:  # also false for NaN
            raise ValueError(f"the hook config's wait {wait!r} is out of range")
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ValueError("the hook config's request limit is not a positive number")
        worktree = document.get("worktree")
        if not isinstance(worktree, str) or not worktree.startswith("/"):
            raise ValueError("the hook config names no worktree")
        return cls(
            job=job,
            worktree=worktree,
            hold_classes=_words(document.get("hold_classes"), "hold_classes"),
            hold_tools=_words(document.get("hold_tools"), "hold_tools"),
            wait_seconds=float(wait),
            max_request_bytes=limit,
        )


def _words(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"the hook config's {name} is not a list of names")
    return tuple(value)


@contextmanager
def reachable(path: Path) -> Iterator[str]:
    """A path to give bind() or connect() for `path`, however long `path` is.

    A long path goes through the folder's descriptor (`/proc/self/fd/N/name`).
    """
    if len(os.fsencode(path)) <= UNIX_PATH_MAX:
        yield str(path)
        return
    folder = os.open(path.parent, os.O_PATH | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{folder}/{path.name}"
    finally:
        os.close(folder)


def connect(path: Path, *, blocking: bool = True) -> socket.socket:
    """A connected Unix stream socket to the hold channel at `path`."""
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        channel.setblocking(blocking)
        with reachable(path) as address:
            channel.connect(address)
    except BaseException:
        channel.close()
        raise
    return channel
