"""What the desk checks on the worker's host before it gives a job a number.

The CLI may run on another machine than the shelf and the agent, so whether the repository is
on the shelf, whether the agent's program is installed and whether a push of the repository
runs are asked here, where the job would run, and answered with the fix; so are the owner's
standing instructions for the agent (a file this host reads).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.client import Client, WorkflowHandle, WorkflowQueryFailedError
from temporalio.service import RPCError, RPCStatusCode

from activities.agent.run import agent_argv
from activities.agent.setup.agent_instructions import load_instructions
from activities.checks.started_jobs import started_as
from activities.git_own_dir import refuse_escaping_git_dir
from activities.shelf_paths import clone_path
from desk.config.settings import DeskSettings
from desk.decisions.message_rules import sender_refusal
from desk.errors import AgentCommandError, CloneMissingError, DeskError, RepoBusyError
from desk.holds.approvals import Principal
from desk.names import PUSHING_MEMO, REPO_STATE_QUERY, repo_workflow_id
from desk.payloads.jobs import AdmissionCheck, AdmissionVerdict
from desk.payloads.repo_state import RepoState

QUERY_TIMEOUT = timedelta(seconds=5)


class AdmissionActivities:
    """Built by the worker with its client and this host's settings."""

    def __init__(self, client: Client, settings: DeskSettings) -> None:
        self.client = client
        self.settings = settings

    @activity.defn
    async def check_admission(self, request: AdmissionCheck) -> AdmissionVerdict:
        """Why the job cannot run here, or an empty verdict when it can."""
        try:
            if not request.host or request.host == self.settings.host:
                await asyncio.to_thread(self._on_this_host, request)
            await self._no_push_running(request.repo)
            await self._may_continue(request)
        except DeskError as refusal:
            return AdmissionVerdict(refusal=str(refusal), kind=refusal.wire)
        return AdmissionVerdict()

    def _on_this_host(self, request: AdmissionCheck) -> None:
        if not (clone_path(self.settings, request.repo) / ".git").exists():
            raise CloneMissingError(
                f"Repository {request.repo!r} is not on the shelf: add it with "
                f"`codedesk repo add {request.repo}` (`codedesk repo list` shows the shelf)."
            )
        refuse_escaping_git_dir(request.repo, clone_path(self.settings, request.repo))
        load_instructions(self.settings)  # the owner's instructions must still be usable
        program = agent_argv(request.agent_command, "")[0]
        if not _installed(program):
            raise AgentCommandError(
                f"The agent's program {program!r} is not installed on the worker's host "
                f"({activity.info().task_queue}): install it there, or pick another agent with "
                "--agent / --agent-command (`codedesk doctor` checks each preset)."
            )

    async def _may_continue(self, request: AdmissionCheck) -> None:
        """A continuation is submitted by the job's starter or one of the owners (the host's
        owners now, or those the job recorded), as only they may talk to it: the client checks
        it too, and this holds for every client."""
        if not request.continues or request.starter in request.owners:
            return
        continued = await started_as(self.client, request.continues)
        stranger = sender_refusal(
            continued, Principal(id=request.starter), f"continue job {request.continues}"
        )
        if stranger is not None:
            raise stranger

    async def _no_push_running(self, repo: str) -> None:
        """Refuse while a push of `repo` runs, as the entity's memo says (a describe, answered
        by the server alone); an entity an older codedesk started has no such memo, and is
        queried (answered by a worker)."""
        handle = self.client.get_workflow_handle(repo_workflow_id(repo))
        try:
            memo = await (await handle.describe(rpc_timeout=QUERY_TIMEOUT)).memo()
            head = str(memo[PUSHING_MEMO]) if PUSHING_MEMO in memo else await self._pushing(handle)
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                return  # no entity yet: nothing was ever pushed or reported
            raise RepoBusyError(
                f"Could not tell whether a push of {repo} runs ({error.message}); try again."
            ) from None
        except WorkflowQueryFailedError as error:
            raise RepoBusyError(
                f"Could not tell whether a push of {repo} runs ({error}); try again."
            ) from None
        if head:
            raise RepoBusyError(
                f"A push of {head[:12]} to {repo} runs now; start the task when it is done."
            )

    async def _pushing(self, entity: WorkflowHandle[Any, Any]) -> str:
        """The head a running push sends, empty when none runs, asked of the `Repo` entity."""
        state: RepoState = await entity.query(
            REPO_STATE_QUERY, result_type=RepoState, rpc_timeout=QUERY_TIMEOUT
        )
        return state.pushing.receipt.head if state.pushing is not None else ""


def _installed(program: str) -> bool:
    """Whether `program` runs here: found on PATH, or an executable file at that path.

    A relative path with a slash (`./agent.sh`) is relative to the job's worktree, which does
    not exist yet: it is left to the agent step to find.
    """
    if os.sep in program and not os.path.isabs(program):
        return True
    found = shutil.which(program)
    return found is not None and Path(found).is_file()
