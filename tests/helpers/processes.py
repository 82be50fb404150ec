"""Fixtures for tests that kill and restart things: `codedesk worker` processes, a dev server.

Registered for the whole suite by `pytest_plugins` in tests/conftest.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers.cli_helpers import CODEDESK
from tests.helpers.waiting import PATIENCE
from workers.devserver import DevServer, free_port

StartWorker = Callable[[dict[str, str]], subprocess.Popen[bytes]]


@pytest.fixture
def start_worker(tmp_path: Path) -> Iterator[StartWorker]:
    """Start `codedesk worker` subprocesses in their own sessions, each logging to
    `worker-<n>.log` in tmp_path (also their cwd); leftovers are SIGKILLed at the end."""
    started: list[subprocess.Popen[bytes]] = []

    def start(env: dict[str, str]) -> subprocess.Popen[bytes]:
        log = (tmp_path / f"worker-{len(started) + 1}.log").open("wb")
        process = subprocess.Popen(
            [CODEDESK, "worker"],
            env=env,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        started.append(process)
        _ready(process, tmp_path / f"worker-{len(started)}.log")
        return process

    yield start
    for process in started:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def _ready(process: subprocess.Popen[bytes], log: Path) -> None:
    """Wait until the worker polls (it says so once the desk answered it), or has exited.

    Commands refuse when no worker polls the task queue, so a test that starts a worker and
    then runs one must not run it before the worker's first poll.
    """
    deadline = time.monotonic() + PATIENCE  # a safety net against a hang, not a measure
    while process.poll() is None:
        if b"Worker polling" in log.read_bytes():
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {PATIENCE:g}s for the worker to poll: {log}")
        time.sleep(0.05)


@pytest.fixture
async def own_server(tmp_path: Path) -> AsyncIterator[list[DevServer]]:
    """A dev server of this test's own (it is restarted); every one started is stopped."""
    servers = [DevServer(tmp_path / "server", free_port(), free_port(), headless=True)]
    await servers[0].start()
    yield servers
    for server in servers:
        server.stop()
