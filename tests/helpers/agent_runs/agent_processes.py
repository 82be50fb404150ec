"""An agent's processes from the host: each sandbox mode an agent may run in, a hold its hook waits
on, the processes of a worktree's agent."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from activities.sandbox.bubblewrap import BWRAP, UNCONFINED, choose_sandbox
from activities.sandbox.processes import processes_with_env
from surfaces.clients.approval_client import ApprovalsClient
from tests.helpers.waiting import until

HOLD_PUSH = "hold:" + json.dumps({"tool": "Bash", "input": {"command": "git push origin main"}})


MODES = [
    UNCONFINED,
    pytest.param(
        BWRAP,
        marks=pytest.mark.skipif(
            choose_sandbox("auto").mode != BWRAP, reason="bubblewrap does not work here"
        ),
    ),
]


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def kill_all(pids: list[int]) -> None:
    """Only when a test failed: leave no sleeper behind."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue


async def hook_waiting(approvals: ApprovalsClient) -> None:
    await until(approvals.open_approvals, "the hook to wait for a person")


def agents_in(worktree: Path) -> list[int]:
    """Live processes of the agent of `worktree`, seen from the host."""
    return processes_with_env("CODEDESK_WORKTREE", str(worktree))
