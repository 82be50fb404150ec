"""The runtime record a running `codedesk up` leaves, and how commands find the server by it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from desk.config.settings import DeskSettings, load_settings
from desk.errors import ServerError
from workers.temporal.client import resolve_address
from workers.temporal.runtime import (
    RuntimeRecord,
    clear_runtime,
    read_runtime,
    runtime_path,
    write_runtime,
)


def record(pid: int, address: str = "127.0.0.1:17233") -> RuntimeRecord:
    return RuntimeRecord(
        address=address, ui_url="http://127.0.0.1:18233", namespace="default", pid=pid
    )


@pytest.fixture
def dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.fixture
def other_live_pid() -> Iterator[int]:
    """The pid of a live process other than this one (another `codedesk up`)."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield child.pid
    child.kill()
    child.wait()


@pytest.fixture
def desk_settings(
    no_env_settings: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> DeskSettings:
    monkeypatch.chdir(tmp_path)
    return load_settings(home=tmp_path / "home")


def test_write_then_read_round_trips(tmp_path: Path) -> None:
    written = record(os.getpid())
    write_runtime(tmp_path / "new-home", written)
    assert read_runtime(tmp_path / "new-home") == written
    assert runtime_path(tmp_path / "new-home").is_file()
    assert not list((tmp_path / "new-home").glob("*.tmp"))


def test_a_second_write_replaces_the_first(tmp_path: Path) -> None:
    write_runtime(tmp_path, record(os.getpid(), "127.0.0.1:1"))
    write_runtime(tmp_path, record(os.getpid(), "127.0.0.1:2"))
    found = read_runtime(tmp_path)
    assert found is not None and found.address == "127.0.0.1:2"


def test_no_record_reads_as_none(tmp_path: Path) -> None:
    assert read_runtime(tmp_path) is None
    assert read_runtime(tmp_path / "missing") is None


def test_a_stale_record_is_ignored(tmp_path: Path, dead_pid: int) -> None:
    write_runtime(tmp_path, record(dead_pid))
    assert read_runtime(tmp_path) is None


@pytest.mark.parametrize("pid", [0, -1])
def test_a_record_with_an_impossible_pid_is_ignored(tmp_path: Path, pid: int) -> None:
    # os.kill(0, 0) and os.kill(-1, 0) succeed (they signal groups), so they prove nothing.
    write_runtime(tmp_path, record(pid))
    assert read_runtime(tmp_path) is None


@pytest.mark.parametrize(
    "text", ["", "{", "not json", '{"address": "127.0.0.1:1"}', '{"pid": "x", "address": 1}']
)
def test_a_corrupt_record_is_ignored(tmp_path: Path, text: str) -> None:
    runtime_path(tmp_path).write_text(text)
    assert read_runtime(tmp_path) is None


def test_a_record_with_unknown_fields_is_read(tmp_path: Path) -> None:
    runtime_path(tmp_path).write_text(
        f'{{"address": "127.0.0.1:1", "pid": {os.getpid()}, "from_a_newer_version": true}}'
    )
    found = read_runtime(tmp_path)
    assert found is not None and found.address == "127.0.0.1:1"


def test_clear_removes_its_own_record(tmp_path: Path) -> None:
    write_runtime(tmp_path, record(os.getpid()))
    clear_runtime(tmp_path, os.getpid())
    assert not runtime_path(tmp_path).exists()


def test_clear_keeps_another_live_process_record(tmp_path: Path, other_live_pid: int) -> None:
    write_runtime(tmp_path, record(other_live_pid))
    clear_runtime(tmp_path, os.getpid())
    assert runtime_path(tmp_path).exists()
    found = read_runtime(tmp_path)
    assert found is not None and found.pid == other_live_pid


def test_clear_without_a_record_does_nothing(tmp_path: Path) -> None:
    clear_runtime(tmp_path, os.getpid())
    assert not runtime_path(tmp_path).exists()


def test_resolve_address_prefers_the_setting(desk_settings: DeskSettings, tmp_path: Path) -> None:
    write_runtime(desk_settings.home, record(os.getpid(), "127.0.0.1:17233"))
    configured = load_settings(home=desk_settings.home, temporal_address="temporal.example:7233")
    assert resolve_address(configured) == "temporal.example:7233"


def test_resolve_address_uses_the_live_record(desk_settings: DeskSettings) -> None:
    write_runtime(desk_settings.home, record(os.getpid(), "127.0.0.1:17233"))
    assert resolve_address(desk_settings) == "127.0.0.1:17233"


def test_resolve_address_without_server_says_to_run_up(desk_settings: DeskSettings) -> None:
    with pytest.raises(ServerError, match="codedesk up"):
        resolve_address(desk_settings)


def test_resolve_address_ignores_a_stale_record(desk_settings: DeskSettings, dead_pid: int) -> None:
    write_runtime(desk_settings.home, record(dead_pid))
    with pytest.raises(ServerError, match="codedesk up") as caught:
        resolve_address(desk_settings)
    assert "CODEDESK_TEMPORAL_ADDRESS" in str(caught.value)
