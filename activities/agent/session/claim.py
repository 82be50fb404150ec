"""Which attempt of a job's agent may start: never an earlier one once a later one has.

A worker stopped past its heartbeat timeout (SIGSTOP, a swapped-out machine) may be handed an
attempt while it is stopped; that attempt times out too, and when the worker continues it holds
a stale attempt and the current one at once. Each starts its agent only under the job's claim:
the later attempt kills whatever an earlier one started, and an earlier one that comes second
does not start at all, so two agents never work in one worktree. The hand-back of a sandboxed
agent's branch (activities/agent/process/agent_git.py) runs under the claim too, and only for the
latest attempt: a stale attempt whose agent ended late must not take back (and remove) the per-job
git folder the later attempt has just given its own agent; the later one took back what it left.

A job whose host was gone runs the agent again as a new activity (its `execution` counts up), whose
attempts start at 1 again: attempts are ordered by (execution, attempt), and the claim counts the
agents the job has started, so the agent of a run after a host came back is told it was
interrupted and the report counts every run.
"""

from __future__ import annotations

import asyncio
import fcntl
from pathlib import Path
from typing import TextIO

from desk.errors import StaleAgentAttemptError
from desk.failures import failure_of

CLAIM_FILE = "agent-claim"
"""In the job's folder: "<execution> <attempt> <runs>" of the latest attempt that started an
agent, and how many agents the job has started (also the lock file). A file of one number
(written before executions were counted) is that attempt of the first execution."""

POLL_SECONDS = 0.05


class AgentClaim:
    """The job's claim, held from killing a stale agent until this attempt's agent started."""

    def __init__(self, handle: TextIO, run: int) -> None:
        self._handle = handle
        self.run = run
        """Which agent of the job this attempt starts: 1 for the first, 2 and on after a crash."""

    @classmethod
    async def take(cls, job_folder: Path, attempt: int, execution: int = 1) -> AgentClaim:
        """Wait for the claim (without blocking the event loop) and record `attempt` in it.

        Raises:
            ApplicationError: a later attempt has already started an agent; this one is stale
                (`StaleAgentAttemptError`, retryable: Temporal has already moved on from it,
                so nothing sees the failure).
        """
        handle = await _locked(job_folder)
        try:
            latest, runs = _recorded(handle.read())
            if latest > (execution, attempt):
                raise failure_of(
                    StaleAgentAttemptError(
                        f"Attempt {attempt} of this agent is stale: attempt {latest[1]} "
                        f"(run {latest[0]} of the agent's step) has started it already, so "
                        "this one does not."
                    )
                )
            run = runs + 1
            handle.seek(0)
            handle.truncate()
            handle.write(f"{execution} {attempt} {run}")
            handle.flush()
        except BaseException:
            handle.close()
            raise
        return cls(handle, run)

    @classmethod
    async def latest(cls, job_folder: Path, attempt: int, execution: int = 1) -> AgentClaim | None:
        """The claim, held, if `attempt` is still the latest to have started an agent; None
        (and the claim let go) once a later attempt has started one."""
        handle = await _locked(job_folder)
        latest, runs = _recorded(handle.read())
        if latest != (execution, attempt):
            handle.close()
            return None
        return cls(handle, runs)

    def close(self) -> None:
        """Let the next attempt in (closing the file drops the lock); closing twice is fine."""
        self._handle.close()


async def _locked(job_folder: Path) -> TextIO:
    """The claim file, open at its start under the job's lock (waited for off the loop)."""
    job_folder.mkdir(parents=True, exist_ok=True)
    handle = (job_folder / CLAIM_FILE).open("a+", encoding="utf-8")
    try:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(POLL_SECONDS)
    except BaseException:
        handle.close()
        raise
    handle.seek(0)
    return handle


def _recorded(text: str) -> tuple[tuple[int, int], int]:
    """((execution, attempt), runs) from the claim file; nothing recorded is ((0, 0), 0)."""
    fields = text.split()
    if not fields or not all(field.isdigit() for field in fields):
        return (0, 0), 0
    numbers = [int(field) for field in fields]
    if len(numbers) == 1:
        return (1, numbers[0]), numbers[0]
    if len(numbers) == 3:
        return (numbers[0], numbers[1]), numbers[2]
    return (0, 0), 0
