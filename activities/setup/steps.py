"""The worktree set-up and check steps: the owner's files and commands for a job's worktree.

Both are safe to run again (a worker killed during one runs it on the next attempt): the files
are copied again over the same paths, and the commands are the owner's to make idempotent
(`npm ci` is). The set-up in force is read from the repository's `Repo` entity, the host's
policy, never from the repository's own files.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

from pydantic import ValidationError
from temporalio import activity
from temporalio.client import Client, WorkflowQueryFailedError, WorkflowQueryRejectedError
from temporalio.service import RPCError, RPCStatusCode

from activities.agent.session.log import AGENT_LOG
from activities.diagnostics import quoted
from activities.off_loop import off_the_loop
from activities.setup.copy_files import copy_setup_files
from activities.setup.left_files import record_setup_files
from activities.setup.sandboxed import Confined, run_confined
from activities.shelf_paths import existing_clone, job_dir
from desk.config.settings import DeskSettings
from desk.errors import ServerError, SetupError
from desk.failures import desk_failures
from desk.names import REPO_STATE_QUERY, SETUP_MEMO, repo_workflow_id
from desk.payloads.repo_state import RepoState
from desk.records.repo_setup import (
    CheckStatus,
    CommandRun,
    RepoSetup,
    WorktreeSetUp,
    WorktreeStepInput,
)

QUERY_TIMEOUT = timedelta(seconds=10)


class SetupActivities:
    """Runs on the clone's host, confined as the agent is there."""

    def __init__(self, settings: DeskSettings, client: Client, sandbox: str) -> None:
        self.settings = settings
        self.client = client
        self.sandbox = sandbox
        """The sandbox mode the agents of this worker run in (`AgentActivities.sandbox`)."""

    @activity.defn
    async def set_up_worktree(self, request: WorktreeStepInput) -> WorktreeSetUp:
        """Copy the owner's files into the worktree, then run the set-up command there."""
        with desk_failures():
            setup = await repo_setup_of(self.client, request.repo)
            if setup.empty():
                return WorktreeSetUp(setup=setup)
            clone = existing_clone(self.settings, request.repo)
            try:
                worktree = Path(request.worktree)
                copied = await off_the_loop(
                    lambda paths: copy_setup_files(clone, worktree, paths), setup.copy_files
                )
            except SetupError as refused:
                return WorktreeSetUp(setup=setup, refusal=str(refused))
            ran, left = None, []
            if setup.setup:
                ran = await self._run(request, setup.setup, "set-up", self.settings.setup_timeout)
                # Recorded outside the worktree, after the command: the agent's check leaves
                # these out while they stay as the set-up left them.
                folder = job_dir(self.settings, request.number)
                left = await off_the_loop(lambda at: record_setup_files(folder, at), worktree)
            return WorktreeSetUp(setup=setup, copied=copied, ran=ran, left=left)

    @activity.defn
    async def check_worktree(self, request: WorktreeStepInput) -> CommandRun | None:
        """Run the owner's check in the worktree after the agent; None when there is none."""
        with desk_failures():
            setup = await repo_setup_of(self.client, request.repo)
            if not setup.check:
                return None
            ran = await self._run(request, setup.check, "check", self.settings.check_timeout)
            tail = quoted(ran.output) if ran.status != CheckStatus.PASSED else ""
            owners = {"blocks": setup.check_blocks, "retries": setup.check_retries, "tail": tail}
            return ran.model_copy(update=owners)

    async def _run(
        self, request: WorktreeStepInput, command: str, step: str, timeout: timedelta
    ) -> CommandRun:
        folder = job_dir(self.settings, request.number)
        folder.mkdir(parents=True, exist_ok=True)
        where = Confined(
            self.settings,
            self.sandbox,
            request.number,
            request.repo,
            Path(request.worktree),
            folder,
        )
        attempt = activity.info().attempt
        with (folder / AGENT_LOG).open("a", encoding="utf-8") as log:
            log.write(f"=== codedesk: {step} `{command}`, attempt {attempt} ===\n")
            log.flush()
            ran = await run_confined(where, command, timeout, log, request.output_chars)
            log.write(f"=== codedesk: {step} {ran.status.value}, exit {ran.exit_code} ===\n")
        return ran


async def repo_setup_of(client: Client, repo: str) -> RepoSetup:
    """The owner's set-up in the repository's entity; empty when the entity never ran."""
    handle = client.get_workflow_handle(repo_workflow_id(repo))
    try:
        state: RepoState = await handle.query(
            REPO_STATE_QUERY, result_type=RepoState, rpc_timeout=QUERY_TIMEOUT
        )
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return RepoSetup()
        raise ServerError(f"The set-up of {repo} could not be read: {error}.") from None
    return state.setup


SETUP_READ_TIMEOUT = timedelta(seconds=1)
"""How long the cut or the agent's end waits for the set-up; well under the steps' heartbeat
timeouts, so that a slow entity costs the job its two steps, never the step it is read in."""


async def setup_now(
    client: Client, repo: str, within: timedelta = SETUP_READ_TIMEOUT
) -> RepoSetup | None:
    """The set-up in force, read for a job to decide which of its steps to run; None when it
    cannot be read `within` its time: the job then runs the steps, which read it again
    themselves and refuse when they cannot, so a failed read here costs a job a step, never a
    check.

    From the entity's memo, which the server answers alone; an entity that has not written it
    yet (started before it did) is asked by query."""
    handle = client.get_workflow_handle(repo_workflow_id(repo))
    try:
        async with asyncio.timeout(within.total_seconds()):
            memo = await (await handle.describe(rpc_timeout=within)).memo()
            if SETUP_MEMO in memo:
                return RepoSetup.model_validate(memo[SETUP_MEMO])
            return await repo_setup_of(client, repo)
    except RPCError as error:
        return RepoSetup() if error.status == RPCStatusCode.NOT_FOUND else None
    except (
        ServerError,
        TimeoutError,
        ValidationError,
        WorkflowQueryFailedError,
        WorkflowQueryRejectedError,
    ):
        return None
