"""Which attempt of a job's agent may start: never an earlier one once a later one has.

A worker stopped past its heartbeat timeout (SIGSTOP, a swapped-out machine) may be handed an
attempt while it is stopped; that attempt times out too, and when the worker continues it holds
a stale attempt and the current one at once. Each starts its agent only under the job's claim:
the later attempt kills whatever an earlier one started, and an earlier one that comes second
does not start at all, so two agents never work in one worktree.
"""

from __future__ import annotations

import asyncio
import fcntl
from pathlib import Path
from typing import TextIO

from temporalio.exceptions import ApplicationError

CLAIM_FILE = "agent-claim"
"""In the job's folder: the highest attempt that has started an agent (also the lock file)."""

POLL_SECONDS = 0.05


class AgentClaim:
    """The job's claim, held from killing a stale agent until this attempt's agent started."""

    def __init__(self, handle: TextIO) -> None:
        self._handle = handle

    @classmethod
    async def take(cls, job_folder: Path, attempt: int) -> AgentClaim:
        """Wait for the claim (without blocking the event loop) and record `attempt` in it.

        Raises:
            ApplicationError: a later attempt has already started an agent; this one is stale.
                Retryable: Temporal has already moved on from it, so nothing sees the failure.
        """
        job_folder.mkdir(parents=True, exist_ok=True)
        handle = (job_folder / CLAIM_FILE).open("a+", encoding="utf-8")
        try:
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    await asyncio.sleep(POLL_SECONDS)
            handle.seek(0)
            recorded = handle.read().strip()
            latest = int(recorded) if recorded.isdigit() else 0
            if latest > attempt:
                raise ApplicationError(
                    f"Attempt {attempt} of this agent is stale: attempt {latest} has started "
                    "it already, so this one does not.",
                    type="StaleAgentAttempt",
                )
            handle.seek(0)
            handle.truncate()
            handle.write(str(attempt))
            handle.flush()
        except BaseException:
            handle.close()
            raise
        return cls(handle)

    def close(self) -> None:
        """Let the next attempt in (closing the file drops the lock); closing twice is fine."""
        self._handle.close()
