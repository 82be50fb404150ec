"""`codedesk up --headless` started as a subprocess and stopped at the end with the servers it
started; its log."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.helpers.agent_pids import live_commands
from tests.helpers.cli_helpers import CODEDESK, cli_env
from workers.devserver import DB_FILE

StartUp = Callable[[Path, int, int], subprocess.Popen[bytes]]


def servers_on(database: Path) -> list[int]:
    """Pids of `temporal` processes serving `database` (what `up` started for a home)."""
    return [pid for pid, argv in live_commands() if str(database) in argv]


@pytest.fixture
def start_up(tmp_path: Path) -> Iterator[StartUp]:
    """Start `codedesk up --headless` subprocesses; stop leftovers and their servers at the end."""
    started: list[tuple[subprocess.Popen[bytes], Path]] = []

    def start(home: Path, port: int, ui_port: int) -> subprocess.Popen[bytes]:
        home.mkdir(parents=True, exist_ok=True)
        log = (tmp_path / f"up-{len(started) + 1}.log").open("wb")
        process = subprocess.Popen(
            [CODEDESK, "up", "--port", str(port), "--ui-port", str(ui_port), "--headless"],
            env=cli_env(CODEDESK_HOME=str(home), CODEDESK_HEARTBEAT_TIMEOUT="2s"),
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        started.append((process, home))
        return process

    yield start
    for process, home in started:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for pid in servers_on(home / DB_FILE):
            os.kill(pid, signal.SIGKILL)


def up_log(tmp_path: Path, n: int) -> str:
    return (tmp_path / f"up-{n}.log").read_text(errors="replace")
