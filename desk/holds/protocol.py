"""The hold channel's wire protocol, shared by the hook and the worker: standard library only.

Per job, the worker writes a read-only hook config (`hold.json`) and serves a Unix socket
(`hold.sock`), both in the job's folder. The hook sends one JSON line per connection: a `hold`
request (it waits for one JSON line back) or a `tally` of calls it answered itself (no answer).
"""

from __future__ import annotations

import os
import socket

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the hook's start-up never imports typing
if TYPE_CHECKING:
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


class HookConfig:
    """What the hook needs to decide locally, written per job by the worker."""

    def __init__(
        self,
        job: int,
        worktree: str,
        hold_classes: tuple[str, ...],
        hold_tools: tuple[str, ...],
        wait_seconds: float,
        max_request_bytes: int,
    ) -> None:
        self.job = job
        self.worktree = worktree
        self.hold_classes = hold_classes
        self.hold_tools = hold_tools
        self.wait_seconds = wait_seconds
        self.max_request_bytes = max_request_bytes

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


class Reachable:
    """`with Reachable(path) as address`: a path bind() or connect() take, however long `path`.

    A long path goes through its folder's descriptor (`/proc/self/fd/N/name`).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.folder = -1

    def __enter__(self) -> str:
        if len(os.fsencode(self.path)) <= UNIX_PATH_MAX:
            return self.path
        head, name = os.path.split(self.path)
        self.folder = os.open(head, os.O_PATH | os.O_DIRECTORY)
        return f"/proc/self/fd/{self.folder}/{name}"

    def __exit__(self, *_: object) -> None:
        if self.folder >= 0:
            os.close(self.folder)
            self.folder = -1


def connect(path: str, *, blocking: bool = True) -> socket.socket:
    """A connected Unix stream socket to the hold channel at `path`."""
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        channel.setblocking(blocking)
        with Reachable(path) as address:
            channel.connect(address)
    except BaseException:
        channel.close()
        raise
    return channel
