"""What stands between the worker and the agent: the egress forwarder in a real bubblewrap
sandbox (it relays, then becomes the agent) and the unconfined agent's reaper."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from activities.sandbox.bubblewrap import (
    EGRESS_PORT,
    SYSTEM_PERL,
    SandboxLayout,
    bwrap_argv,
    forwarder_argv,
    forwarder_for,
    perl_forwarder,
    python_forwarder,
    reaper_argv,
    tool_paths,
)
from tests.helpers.agent_runs.sandboxes import needs_bwrap

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


LONELY_AGENT = f"""\
import socket
with socket.create_connection(("127.0.0.1", {EGRESS_PORT})) as conn:
    try:
        conn.recv(1)
    except OSError:
        pass
print("ended", flush=True)
"""
"""Connects and waits for a word: the forwarder must end the connection when it has no proxy."""

BIG = 3 * 1024 * 1024 + 17
"""Bytes a large exchange sends each way: many reads and partial writes in a relay."""

BIG_AGENT = f"""\
import socket, threading
with socket.create_connection(("127.0.0.1", {EGRESS_PORT})) as conn:
    sender = threading.Thread(target=lambda: (conn.sendall(b"x" * {BIG}), conn.shutdown(1)))
    sender.start()
    got = 0
    while chunk := conn.recv(1 << 16):
        got += len(chunk)
    sender.join()
    print("echoed", got, flush=True)
"""

needs_perl = pytest.mark.skipif(not SYSTEM_PERL.exists(), reason="this host has no /usr/bin/perl")
FORWARDERS = [
    pytest.param(python_forwarder, id="python"),
    pytest.param(perl_forwarder, id="perl", marks=needs_perl),
]
"""Both forwarders keep one contract: a job runs the Perl one where the host has it."""


def serving(path: Path, answer: Callable[[socket.socket], None]) -> Iterator[Path]:
    """A stand-in for the worker's egress proxy at `path`, answering each connection."""
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
                answer(conn)

    threading.Thread(target=serve, daemon=True).start()
    yield path
    listener.close()


def pong(conn: socket.socket) -> None:
    """Answers the line `ping` with `pong`."""
    asked = conn.makefile().readline().strip()
    conn.sendall(b"pong\n" if asked == "ping" else b"what?\n")


def echo(conn: socket.socket) -> None:
    """Sends back everything, then ends its side once the agent has ended its own."""
    while chunk := conn.recv(1 << 16):
        conn.sendall(chunk)
    conn.shutdown(socket.SHUT_WR)


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[Path]:
    yield from serving(tmp_path / "egress.sock", pong)


def sandboxed(worktree: Path, argv: list[str], forwarder: list[str] | None = None) -> list[str]:
    """The forwarder and `argv` in bwrap as a job runs them: with the Python and the agent's
    program bound back when they live where the sandbox hides (a checkout under /tmp, as CI's)."""
    wrapped = forwarder_argv(worktree / "egress.sock", argv, forwarder)
    tools = tool_paths([], argv[0], os.environ.get("PATH", ""))
    return bwrap_argv(SandboxLayout(worktree=worktree, readable=tools), wrapped)


def imports_of(importtime: str) -> set[str]:
    """The modules a `python -X importtime` run imported, from its stderr."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in importtime.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def run(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=SAFETY_NET, check=False
    )


@needs_bwrap
@pytest.mark.parametrize("forwarder", FORWARDERS)
def test_the_agent_is_the_sandboxs_first_process_and_reaches_the_proxy(
    tmp_path: Path, proxy: Path, forwarder: Callable[[], list[str]]
) -> None:
    done = run(sandboxed(tmp_path, [sys.executable, "-I", "-c", AGENT], forwarder()), tmp_path)

    assert done.returncode == 0, done.stderr
    # Its parent is the sandbox's init (pid 1), not a forwarder process in between.
    assert done.stdout.splitlines() == ["parent 1", "proxy said pong"], done.stdout


@needs_bwrap
@pytest.mark.parametrize("forwarder", FORWARDERS)
def test_a_large_exchange_is_relayed_whole_both_ways(
    tmp_path: Path, forwarder: Callable[[], list[str]]
) -> None:
    for _ in serving(tmp_path / "egress.sock", echo):
        done = run(
            sandboxed(tmp_path, [sys.executable, "-I", "-c", BIG_AGENT], forwarder()), tmp_path
        )

        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["echoed", str(BIG)], done.stdout


@needs_bwrap
@pytest.mark.parametrize("forwarder", FORWARDERS)
def test_an_unreachable_proxy_ends_the_agents_connection_with_a_reason(
    tmp_path: Path, forwarder: Callable[[], list[str]]
) -> None:
    done = run(
        sandboxed(tmp_path, [sys.executable, "-I", "-c", LONELY_AGENT], forwarder()), tmp_path
    )

    assert done.stdout.splitlines() == ["ended"], done.stdout
    assert "codedesk egress forwarder: proxy unreachable" in done.stderr, done.stderr


@needs_bwrap
@pytest.mark.parametrize("forwarder", FORWARDERS)
def test_an_agent_that_waits_for_all_its_children_ends_with_its_own_status(
    tmp_path: Path, proxy: Path, forwarder: Callable[[], list[str]]
) -> None:
    agent = ["sh", "-c", "true & wait; echo waited; exit 3"]
    done = run(sandboxed(tmp_path, agent, forwarder()), tmp_path)

    assert (done.returncode, done.stdout) == (3, "waited\n"), done.stderr


@needs_bwrap
@pytest.mark.parametrize("forwarder", FORWARDERS)
def test_an_agent_that_cannot_start_is_reported_in_its_output(
    tmp_path: Path, proxy: Path, forwarder: Callable[[], list[str]]
) -> None:
    done = run(sandboxed(tmp_path, ["no-such-agent-program"], forwarder()), tmp_path)

    assert done.returncode == 127
    assert "could not start 'no-such-agent-program'" in done.stderr, done.stderr


@needs_perl
def test_a_host_with_the_system_perl_runs_the_perl_forwarder_unless_perl5opt_is_set() -> None:
    assert forwarder_for({"PATH": "/usr/bin"}) == perl_forwarder()
    assert forwarder_for({"PERL5OPT": "-Mlocal::lib"}) == python_forwarder()


@needs_bwrap
@needs_perl
def test_the_perl_forwarder_relays_bytes_whatever_perl_unicode_says(tmp_path: Path) -> None:
    for _ in serving(tmp_path / "egress.sock", echo):
        argv = sandboxed(tmp_path, [sys.executable, "-I", "-c", BIG_AGENT], perl_forwarder())
        done = run(argv, tmp_path, {**os.environ, "PERL_UNICODE": "SDA"})

        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["echoed", str(BIG)], done.stdout


@needs_bwrap
def test_the_python_forwarder_imports_no_library_module_before_the_agent_starts(
    tmp_path: Path, proxy: Path
) -> None:
    forwarder = python_forwarder()
    forwarder[1:1] = ["-X", "importtime"]
    done = run(sandboxed(tmp_path, ["true"], forwarder), tmp_path)

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
