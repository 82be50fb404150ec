"""What stands between the worker and the agent: the egress forwarder in a real bubblewrap
sandbox (it relays, then becomes the agent) and the unconfined agent's reaper."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from activities.sandbox import (
    EGRESS_PORT,
    SandboxLayout,
    bwrap_argv,
    forwarder_argv,
    reaper_argv,
    tool_paths,
)
from tests.test_sandbox import pytestmark as needs_bwrap

HEAVY = {"site", "socket", "asyncio", "threading", "selectors"}
"""Modules a wrapper would import only at a cost to every agent's start (`site` alone, with an
editable install, is ~30 ms)."""

SAFETY_NET = 60
"""Seconds before a hung sandbox fails the test instead of hanging the suite (not a timing)."""

AGENT = f"""\
import os, socket
print("parent", os.getppid(), flush=True)
with socket.create_connection(("127.0.0.1", {EGRESS_PORT})) as conn:
    conn.sendall(b"ping\\n")
    conn.shutdown(socket.SHUT_WR)
    print("proxy said", conn.makefile().read().strip(), flush=True)
"""


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[Path]:
    """A stand-in for the worker's egress proxy: answers each line `ping` with `pong`."""
    path = tmp_path / "egress.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen()

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                asked = conn.makefile().readline().strip()
                conn.sendall(b"pong\n" if asked == "ping" else b"what?\n")

    threading.Thread(target=serve, daemon=True).start()
    yield path
    listener.close()


def sandboxed(worktree: Path, argv: list[str], *python_options: str) -> list[str]:
    """The forwarder and `argv` in bwrap as a job runs them: with the Python and the agent's
    program bound back when they live where the sandbox hides (a checkout under /tmp, as CI's)."""
    forwarder = forwarder_argv(worktree / "egress.sock", argv)
    forwarder[1:1] = python_options
    tools = tool_paths([], argv[0], os.environ.get("PATH", ""))
    return bwrap_argv(SandboxLayout(worktree=worktree, readable=tools), forwarder)


def imports_of(importtime: str) -> set[str]:
    """The modules a `python -X importtime` run imported, from its stderr."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in importtime.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, timeout=SAFETY_NET, check=False
    )


@needs_bwrap
def test_the_agent_is_the_sandboxs_first_process_and_reaches_the_proxy(
    tmp_path: Path, proxy: Path
) -> None:
    done = run(sandboxed(tmp_path, [sys.executable, "-I", "-c", AGENT]), tmp_path)

    assert done.returncode == 0, done.stderr
    # Its parent is the sandbox's init (pid 1), not a forwarder process in between.
    assert done.stdout.splitlines() == ["parent 1", "proxy said pong"], done.stdout


@needs_bwrap
def test_an_agent_that_waits_for_all_its_children_ends_with_its_own_status(
    tmp_path: Path, proxy: Path
) -> None:
    done = run(sandboxed(tmp_path, ["sh", "-c", "true & wait; echo waited; exit 3"]), tmp_path)

    assert (done.returncode, done.stdout) == (3, "waited\n"), done.stderr


@needs_bwrap
def test_an_agent_that_cannot_start_is_reported_in_its_output(tmp_path: Path, proxy: Path) -> None:
    done = run(sandboxed(tmp_path, ["no-such-agent-program"]), tmp_path)

    assert done.returncode == 127
    assert "could not start 'no-such-agent-program'" in done.stderr, done.stderr


@needs_bwrap
def test_the_forwarder_imports_no_library_module_before_the_agent_starts(
    tmp_path: Path, proxy: Path
) -> None:
    done = run(sandboxed(tmp_path, ["true"], "-X", "importtime"), tmp_path)

    assert done.returncode == 0, done.stderr
    imported = imports_of(done.stderr)
    assert imported and not imported & HEAVY, sorted(imported & HEAVY)


def test_the_reaper_imports_no_library_module_before_the_agent_starts(tmp_path: Path) -> None:
    argv = reaper_argv(["true"])
    argv[1:1] = ["-X", "importtime"]
    done = run(argv, tmp_path)

    assert done.returncode == 0, done.stderr
    imported = imports_of(done.stderr)
    assert imported and not imported & HEAVY, sorted(imported & HEAVY)
