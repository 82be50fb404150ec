"""The floor of a durable job: the smallest Temporal program that does a codedesk job's steps.

One workflow and three activities on their own task queue of the same dev server: cut a
worktree on a new branch, run the agent in it (unconfined, nothing around it), then rebase,
fast-forward the clone and remove the worktree and branch. No admission, no repository lock,
no sandbox, no hold channel, no report: what is left is what any durable program pays for the
same work, so `bench/job_overhead.py` measures codedesk against it (issue 32).

The workflow calls its activities by name, so the workflow sandbox imports nothing of git or
subprocesses from this module's activity half.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.common import RetryPolicy
from temporalio.worker import Worker

STEP = timedelta(minutes=30)
"""A step's time: a worktree of 60,000 files takes tens of seconds to cut or remove on a busy
disk (bench/big_repo.py), more than a minute at worst."""
ONCE = RetryPolicy(maximum_attempts=1)
"""The floor's steps are not safe to run again (a removal done, its retry rebases nothing): a
step that fails or times out fails the bench, instead of a retry that never passes."""
IDENTITY = ("-c", "user.name=codedesk bench", "-c", "user.email=bench@codedesk.invalid")
SAFE = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


@dataclass(frozen=True)
class FloorInput:
    clone: str
    worktree: str
    branch: str
    agent: str
    """The agent script's path, run with this Python in the worktree."""
    job: str


@workflow.defn(name="FloorJob")
class FloorJob:
    @workflow.run
    async def run(self, job: FloorInput) -> None:
        for step in ("floor_cut", "floor_agent", "floor_integrate"):
            await workflow.execute_activity(
                step, job, start_to_close_timeout=STEP, retry_policy=ONCE
            )


def _git(cwd: str, *args: str) -> str:
    done = subprocess.run(
        ["git", *SAFE, *args], cwd=cwd, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


@activity.defn(name="floor_cut")
async def cut(job: FloorInput) -> None:
    await asyncio.to_thread(
        _git, job.clone, "worktree", "add", "--quiet", "-b", job.branch, job.worktree, "HEAD"
    )


@activity.defn(name="floor_agent")
async def run_agent(job: FloorInput) -> None:
    env = {**os.environ, "CODEDESK_JOB": job.job, "CODEDESK_TASK": "bench"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, job.agent, cwd=job.worktree, env=env
    )
    if await process.wait():
        raise RuntimeError(f"the floor's agent exited {process.returncode}")


def _integrate(job: FloorInput) -> None:
    _git(job.worktree, *IDENTITY, "rebase", "--quiet", _git(job.clone, "rev-parse", "HEAD"))
    _git(job.clone, "merge", "--ff-only", "--quiet", job.branch)
    _git(job.clone, "worktree", "remove", job.worktree)
    _git(job.clone, "branch", "--quiet", "-D", job.branch)


@activity.defn(name="floor_integrate")
async def integrate(job: FloorInput) -> None:
    await asyncio.to_thread(_integrate, job)


class Floor:
    """The floor program on a clone of its own; `once` runs one job to its end."""

    def __init__(self, client: Client, clone: Path, trees: Path, agent: Path) -> None:
        self.client, self.clone, self.trees, self.agent = client, clone, trees, agent
        self.task_queue = f"floor-{uuid.uuid4().hex[:8]}"

    async def once(self, index: int) -> None:
        job = FloorInput(
            clone=str(self.clone),
            worktree=str(self.trees / str(index)),
            branch=f"floor-{index}",
            agent=str(self.agent),
            job=f"floor-{index}",
        )
        await self.client.execute_workflow(
            FloorJob.run, job, id=f"floor-{self.task_queue}-{index}", task_queue=self.task_queue
        )

    @asynccontextmanager
    async def working(self) -> AsyncIterator[Floor]:
        """A worker of the floor's workflow and activities, for as long as the block runs."""
        async with Worker(
            self.client,
            task_queue=self.task_queue,
            workflows=[FloorJob],
            activities=[cut, run_agent, integrate],
        ):
            yield self
