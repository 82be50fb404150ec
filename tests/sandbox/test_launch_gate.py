"""The sandboxed agent starts only once the worker has opened its gate (real bwrap)."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from activities.sandbox.bubblewrap import BWRAP, SandboxLayout, bwrap_argv, choose_sandbox
from activities.sandbox.launch_gate import LaunchGate

pytestmark = pytest.mark.skipif(
    choose_sandbox("auto").mode != BWRAP, reason="bubblewrap does not work here"
)

AGENT = ["sh", "-c", "echo started > started.txt; ls /proc/$$/fd; readlink /proc/$$/fd/0"]
"""Marks that it ran, then lists its descriptors and names its input."""


async def gated_run(folder: Path, open_gate: bool) -> tuple[int, str, bool]:
    """Start AGENT in a sandbox over `folder` behind a gate; open it or let it close shut.
    Returns the exit code, the output, and whether the gate was opened."""
    gate = LaunchGate.create()
    process = await spawn(gate, bwrap_argv(SandboxLayout(folder), []), folder)
    if open_gate:
        opened = await gate.open_when_bound()
    else:  # as when the worker dies once bwrap is bound: the gate closes unopened
        opened = False
        await asyncio.to_thread(read_info, gate.info_read)
        gate.close()
    output, _ = await process.communicate()
    return await process.wait(), output.decode(), opened


async def spawn(gate: LaunchGate, bwrap: list[str], folder: Path) -> asyncio.subprocess.Process:
    """Start AGENT under `bwrap` (its program and options) behind `gate`, as the agent runs."""
    process = await asyncio.create_subprocess_exec(
        *gate.gated([*bwrap, *AGENT], len(bwrap)),
        cwd=folder,
        stdin=gate.gate_read,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        pass_fds=gate.inherited,
    )
    gate.started()
    return process


def read_info(fd: int) -> None:
    """Read bwrap's info to its end, without answering it."""
    while os.read(fd, 4096):
        pass


async def test_an_opened_gate_starts_the_agent_with_no_pipe_of_the_gate(tmp_path: Path) -> None:
    code, output, opened = await gated_run(tmp_path, open_gate=True)
    assert opened
    assert code == 0, output
    assert (tmp_path / "started.txt").read_text() == "started\n"
    lines = output.split()
    assert lines[-1] == "/dev/null", output  # the agent's input, not the gate's pipe
    assert sorted(lines[:-1]) == ["0", "1", "2"], output  # neither pipe is inherited


async def test_a_gate_never_opened_starts_no_agent(tmp_path: Path) -> None:
    code, output, opened = await gated_run(tmp_path, open_gate=False)
    assert not opened
    assert code != 0, output
    assert not (tmp_path / "started.txt").exists()


async def test_the_gate_stays_shut_when_bwrap_ends_before_it_is_bound(tmp_path: Path) -> None:
    gate = LaunchGate.create()
    process = await spawn(gate, ["bwrap", "--no-such-option", "--"], tmp_path)
    assert not await gate.open_when_bound()
    output, _ = await process.communicate()
    assert process.returncode != 0, output
    assert not (tmp_path / "started.txt").exists()
