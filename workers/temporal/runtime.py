"""The runtime record: where a running `codedesk up` serves Temporal, so other commands find it."""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from desk.config.basics.defaults import DEFAULT_NAMESPACE
from desk.errors import ServerError

RUNTIME_FILE = "runtime.json"


@dataclass(frozen=True)
class RuntimeRecord:
    """What `codedesk up` writes into the home directory while it runs.

    A dataclass, not a pydantic model: every command reads it, and `codedesk jobs` must not
    pay for importing pydantic to find the server.
    """

    address: str
    pid: int
    ui_url: str = ""
    namespace: str = DEFAULT_NAMESPACE

    @classmethod
    def from_json(cls, text: str) -> RuntimeRecord:
        """The record in `text`; ValueError if it is not one (unknown fields are ignored)."""
        document: Any = json.loads(text)
        if not isinstance(document, dict):
            raise ValueError("the runtime record is not a JSON object")
        fields = {"address": str, "pid": int, "ui_url": str, "namespace": str}
        values = {name: document[name] for name in fields if name in document}
        for name, kind in fields.items():
            if name in values and (type(values[name]) is not kind):
                raise ValueError(f"the runtime record's {name} is not a {kind.__name__}")
        if "address" not in values or "pid" not in values:
            raise ValueError("the runtime record lacks its address or pid")
        return cls(**values)


def runtime_path(home: Path) -> Path:
    return home / RUNTIME_FILE


def write_runtime(home: Path, record: RuntimeRecord) -> None:
    """Record a running server atomically (a reader never sees half a file)."""
    home.mkdir(parents=True, exist_ok=True)
    partial = runtime_path(home).with_suffix(".tmp")
    partial.write_text(json.dumps(asdict(record), indent=2))
    partial.replace(runtime_path(home))


def read_runtime(home: Path) -> RuntimeRecord | None:
    """The record of a live `codedesk up`, or None when none runs (a stale record is ignored)."""
    try:
        record = RuntimeRecord.from_json(runtime_path(home).read_text())
    except (OSError, ValueError):
        return None
    return record if _alive(record.pid) else None


def clear_runtime(home: Path, pid: int) -> None:
    """Remove the record if it is still the one process `pid` wrote."""
    current = read_runtime(home)
    if current is None or current.pid == pid:
        with contextlib.suppress(FileNotFoundError):
            runtime_path(home).unlink()


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False  # kill(0) and kill(-1) signal whole groups, so they would prove nothing
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def server_address(home: Path, configured: str) -> str:
    """The configured Temporal address, else the one a running `codedesk up` recorded."""
    if configured:
        return configured
    record = read_runtime(home)
    if record is None:
        raise ServerError(
            "No Temporal server is known: start one with `codedesk up` in another terminal, "
            "or set CODEDESK_TEMPORAL_ADDRESS to a running server."
        )
    return record.address


def cannot_reach(address: str, error: BaseException) -> ServerError:
    """The error of a failed connection to the Temporal server at `address`."""
    return ServerError(
        f"Cannot reach the Temporal server at {address} ({error}). Is `codedesk up` running, "
        "or is CODEDESK_TEMPORAL_ADDRESS right?"
    )
