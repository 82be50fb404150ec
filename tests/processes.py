"""Fixtures for tests that kill and restart things: `codedesk worker` processes, a dev server.

Registered for the whole suite by `pytest_plugins` in tests/conftest.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from tests.cli_helpers import CODEDESK
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
        return process

    yield start
    for process in started:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


@pytest.fixture
async def own_server(tmp_path: Path) -> AsyncIterator[list[DevServer]]:
    """A dev server of this test's own (it is restarted); every one started is stopped."""
    servers = [DevServer(tmp_path / "server", free_port(), free_port(), headless=True)]
    await servers[0].start()
    yield servers
    for server in servers:
        server.stop()
