"""The runtime record: where a running `codedesk up` serves Temporal, so other commands find it."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict

RUNTIME_FILE = "runtime.json"


class RuntimeRecord(BaseModel):
    """What `codedesk up` writes into the home directory while it runs."""

    model_config = ConfigDict(extra="ignore")

    address: str
    ui_url: str = ""
    namespace: str = "default"
    pid: int


def runtime_path(home: Path) -> Path:
    return home / RUNTIME_FILE


def write_runtime(home: Path, record: RuntimeRecord) -> None:
    """Record a running server atomically (a reader never sees half a file)."""
    home.mkdir(parents=True, exist_ok=True)
    partial = runtime_path(home).with_suffix(".tmp")
    partial.write_text(record.model_dump_json(indent=2))
    partial.replace(runtime_path(home))


def read_runtime(home: Path) -> RuntimeRecord | None:
    """The record of a live `codedesk up`, or None when none runs (a stale record is ignored)."""
    try:
        record = RuntimeRecord.model_validate_json(runtime_path(home).read_text())
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
