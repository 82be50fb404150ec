"""The reaper (activities/sandbox/reaper.py) against trees that change while it kills them: whatever
the agent's processes do as their worker dies, none of them outlives it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from activities.sandbox import reaper
from activities.sandbox.bubblewrap import REAPER
from activities.sandbox.processes import processes_with_env
from tests.helpers.waiting import until

MARK = "CODEDESK_REAPER_TEST"
"""Every process of one test's tree carries this variable with the test's own value, so a
test counts its own processes and never another test's or another session's."""

KILL_ROUNDS = 200
"""How many times a failed test's clean-up kills what is left before it gives up and says so."""

MIDDLES = 24
"""Processes that each leave a sleeping child and exit as the worker dies."""

LEAVING_AGENT = f"""
import os, subprocess, sys, time
for number in range({MIDDLES}):
    if os.fork() == 0:
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        sys.stdin.buffer.read()
        time.sleep(number / 50)
        os._exit(0)
sys.stdin.buffer.read()
"""
"""An agent whose processes leave at the moment its worker dies, each leaving a sleeper: as the
scripted agent and its hook do when the worker's pipe and hold socket close (the agent dies
writing to its broken stdout, the hook reads the end of its answer). Their stdin is a pipe
only the worker holds, so they read its end when the worker dies; then they leave one by one
over half a second, spread over the reaper's look at its tree."""

CHURNING_AGENT = """
import subprocess, sys, time
while True:
    subprocess.Popen(
        [sys.executable, "-c",
         "import subprocess, sys; subprocess.Popen([sys.executable, '-c', "
         "'import time; time.sleep(600)'], start_new_session=True)"],
    )
    time.sleep(0.01)
"""
"""An agent that never stops starting processes which leave a sleeper in a session of its
own and exit: the tree gains and loses processes throughout the reaper's look at it."""

HOPPING_AGENT = """
import os, time
if os.fork() == 0:
    open({hopping!r}, "w").close()
    while True:
        if os.fork():
            os._exit(0)
time.sleep(600)
"""
"""An agent with a child that forks and exits without end, so its one process has a new pid
at every look: a kill sent to the pid seen arrives after it has moved on. It makes the file
`hopping` before it starts (a look at /proc rarely catches it)."""

WORKER = """
import subprocess, sys, time
from activities.sandbox.bubblewrap import reaper_argv
agent = [sys.executable, "-c", sys.argv[1]]
subprocess.Popen(reaper_argv(agent), stdin=subprocess.PIPE, start_new_session=True)
time.sleep(600)
"""
"""A stand-in for the worker: it starts the reaper as the worker does (a session of its own,
the argv the worker builds), keeps the write end of the agent's stdin, and waits to be killed."""

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def mark() -> Iterator[str]:
    value = uuid.uuid4().hex
    yield value
    kill_marked(value)


def kill_marked(value: str) -> None:
    """Only when a test failed: leave nothing behind. By process group too, and again until none
    is left, since a process that hops from pid to pid is never where a kill by pid is sent
    (every group here was made by a process of the test, so holds only its processes)."""
    for _ in range(KILL_ROUNDS):
        found = processes_with_env(MARK, value)
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError):
                group = os.getpgid(pid)
                if group != os.getpgrp():
                    os.killpg(group, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)
    raise AssertionError(f"processes of {MARK}={value} are still alive: kill them by hand")


def start_worker(mark: str, agent: str) -> subprocess.Popen[bytes]:
    argv = [sys.executable, "-c", WORKER, agent]
    env = {**os.environ, MARK: mark}
    return subprocess.Popen(argv, env=env, cwd=ROOT, start_new_session=True)


async def sigkill_the_worker_when(
    worker: subprocess.Popen[bytes], mark: str, count: int, ready: Path | None = None
) -> None:
    def started() -> bool:
        assert worker.poll() is None, f"the stand-in worker ended ({worker.returncode})"
        if ready is not None and not ready.exists():
            return False
        return len(processes_with_env(MARK, mark)) >= count

    await until(started, f"{count} processes")
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait()


async def test_processes_that_leave_as_the_worker_dies_do_not_hide_their_children(
    mark: str,
) -> None:
    # A leaving process moves its child up to the reaper while the reaper looks for its
    # tree: the look misses that child, so the reaper must look again until it has no child.
    worker = start_worker(mark, LEAVING_AGENT)
    # the worker, the reaper, the agent and each middle with its sleeper
    await sigkill_the_worker_when(worker, mark, 3 + 2 * MIDDLES)

    await until(lambda: not processes_with_env(MARK, mark), "the agent's whole tree to die")


async def test_a_tree_that_keeps_starting_processes_dies_with_the_worker(mark: str) -> None:
    worker = start_worker(mark, CHURNING_AGENT)
    await sigkill_the_worker_when(worker, mark, 12)

    await until(lambda: not processes_with_env(MARK, mark), "the agent's whole tree to die")


def test_a_reaper_whose_worker_is_gone_before_it_is_armed_runs_nothing(tmp_path: Path) -> None:
    # The worker can die after the fork and before the reaper sets its death signal: then the
    # reaper is an orphan from its first instruction, and only the worker's pid, given on its
    # command line, tells it so. Here its parent is this test, not the worker it was told of.
    ran = tmp_path / "ran"
    agent = [sys.executable, "-c", f"open({str(ran)!r}, 'w')"]
    argv = [sys.executable, "-I", str(REAPER), "--parent", "1", "--", *agent]
    done = subprocess.run(argv, capture_output=True, text=True)

    assert done.returncode == 128 + signal.SIGTERM, done
    assert "the worker (pid 1) is gone; the agent was not started" in done.stderr, done
    assert not ran.exists()


def test_a_reaper_told_no_worker_refuses_to_start() -> None:
    done = subprocess.run([sys.executable, "-I", str(REAPER), "--", "true"], capture_output=True)
    assert done.returncode == 2, done
    assert b"usage: reaper.py --parent WORKER_PID -- COMMAND" in done.stderr, done


async def test_a_process_that_keeps_changing_its_pid_dies_with_the_worker(
    mark: str, tmp_path: Path
) -> None:
    hopping = tmp_path / "hopping"
    worker = start_worker(mark, HOPPING_AGENT.format(hopping=str(hopping)))
    # the worker, the reaper and the agent, whose child hops
    await sigkill_the_worker_when(worker, mark, 3, hopping)

    await until(lambda: not processes_with_env(MARK, mark), "the agent's whole tree to die")


def test_both_ways_of_finding_children_find_the_same_processes() -> None:
    # The kernel's per-thread lists where it has them, one pass over /proc where it has not.
    sleepers = [
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]) for _ in range(3)
    ]
    try:
        expected = {sleeper.pid for sleeper in sleepers}
        assert expected <= set(reaper.children_by_scan()(os.getpid()))
        if reaper.CHILDREN_LISTED:
            assert expected <= set(reaper.listed_children(os.getpid()))
    finally:
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()
