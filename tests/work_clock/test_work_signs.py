"""The signs of work the hold channel samples, on real processes and a real Unix socket."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from activities.holds.work_clock import BesideHolds, peer_pid
from activities.sandbox import tree as agent_tree
from activities.sandbox.bubblewrap import perl_forwarder, python_forwarder
from activities.sandbox.tree import look_at_tree
from tests.helpers.waiting import PATIENCE, eventually

# The root starts a stand-in for a waiting hook, a sleeper beside it and a child it never
# reaps (a zombie), prints their pids and waits to be killed.
TREE = """
import subprocess, sys, time
hook = subprocess.Popen(["sleep", "600"])
beside = subprocess.Popen(sys.argv[1:])
zombie = subprocess.Popen(["true"])
print(hook.pid, beside.pid, zombie.pid, flush=True)
time.sleep(600)
"""


@pytest.fixture
def tree() -> Iterator[tuple[int, int, int, int]]:
    """(root, hook, beside, zombie)."""
    root = subprocess.Popen(
        [sys.executable, "-c", TREE, "sleep", "600"],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert root.stdout is not None
    hook, beside, zombie = (int(pid) for pid in root.stdout.readline().split())
    try:
        # Every test looks at a settled tree: `true` may not have exited yet on a busy machine.
        deadline = time.monotonic() + PATIENCE
        while state(zombie) != "Z":
            assert time.monotonic() < deadline, "the unreaped child never became a zombie"
            time.sleep(0.01)
        yield root.pid, hook, beside, zombie
    finally:
        os.killpg(root.pid, 9)
        root.wait()
        root.stdout.close()


def state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


async def test_a_hook_and_its_ancestors_are_not_working_what_runs_beside_is(
    tree: tuple[int, int, int, int],
) -> None:
    root, hook, beside, zombie = tree
    assert look_at_tree(root, [hook]).working == (beside,)
    # Without a waiting hook, every live process of the tree is there to work.
    assert look_at_tree(root, []).working == tuple(sorted((root, hook, beside)))
    # A hook that is not in the tree changes nothing.
    assert look_at_tree(root, [os.getpid()]).working == tuple(sorted((root, hook, beside)))


async def test_the_sandbox_relay_is_known_by_its_command_line(
    tree: tuple[int, int, int, int],
) -> None:
    root, hook, beside, _ = tree
    relay = Path(f"/proc/{beside}/cmdline").read_bytes()
    assert look_at_tree(root, [hook], relay=relay).working == ()
    assert look_at_tree(root, [hook], relay=relay + b"x\0").working == (beside,)


def test_a_look_by_children_and_a_look_by_scan_see_the_same_tree(
    tree: tuple[int, int, int, int],
) -> None:
    root = tree[0]
    assert agent_tree.CHILDREN_LISTED, "the kernel lists no children here: only the scan runs"
    assert set(agent_tree.tree_stats(root)) == set(agent_tree.tree_stats_by_scan(root))


def test_the_watch_knows_the_relay_only_when_the_command_is_the_forwarder() -> None:
    clock = BesideHolds()
    clock.watch(1, ["sleep", "600"])
    assert clock.relay == b""
    for forwarder in (perl_forwarder(), python_forwarder()):
        command = [*forwarder, "/run/egress.sock", "9", "--", "agent"]
        clock.watch(1, command)
        assert clock.relay == b"\0".join(part.encode() for part in command) + b"\0"
    clock.watch(1, ["sleep", "600"])
    assert clock.relay == b""


async def test_a_sample_charges_the_interval_when_the_tree_used_the_cpu() -> None:
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        clock = BesideHolds()
        clock.watch(busy.pid)
        with clock.hook_waiting(busy.pid):  # the busy process is "the hook": only CPU shows
            assert await clock.sample(0.0) == 0.0  # the first sample marks where it stands
            charged = await eventually(
                lambda: _sample_after(clock, 1.0), lambda seconds: seconds > 0, "a charged sample"
            )
        assert charged == 1.0 and clock.why == ("cpu",)
    finally:
        busy.kill()
        busy.wait()


async def _sample_after(clock: BesideHolds, step: float) -> float:
    last = clock._last
    assert last is not None
    await asyncio.sleep(0.2)
    return await clock.sample(last.at + step)


async def test_a_sample_charges_traffic_and_output_and_nothing_else() -> None:
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        clock = BesideHolds()
        clock.watch(sleeper.pid)
        with clock.hook_waiting(sleeper.pid):
            await clock.sample(0.0)
            assert await clock.sample(1.0) == 0.0 and clock.why == ()
            clock.traffic.bytes += 1
            assert await clock.sample(2.0) == 1.0 and clock.why == ("egress",)
            clock.output_bytes += 1
            assert await clock.sample(3.5) == 1.5 and clock.why == ("output",)
        assert not clock.hooks
        # Once the hold ends, the sleeper is no hook: being there is working.
        await clock.sample(4.0)
        assert await clock.sample(5.0) == 1.0 and clock.why == ("processes",)
        assert clock.working == (sleeper.pid,)
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_peer_of_a_unix_socket_is_the_process_that_connected() -> None:
    ours, theirs = socket.socketpair(socket.AF_UNIX)
    with ours, theirs:
        assert peer_pid(ours) == os.getpid()
    assert peer_pid(None) == 0
