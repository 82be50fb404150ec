"""The desk's side effects: which jobs still run (to reclaim lost slots), and its host policy."""

from __future__ import annotations

from datetime import timedelta

from temporalio import activity
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from desk.errors import PolicyError
from desk.failures import desk_failures
from desk.names import DESK_STATE_QUERY, DESK_WORKFLOW_ID, job_workflow_id
from desk.payloads.jobs import DeskState, HostPolicyQuery, RunningJobs, RunningJobsInput
from desk.policy.host import HostPolicy

POLICY_QUERY_TIMEOUT = timedelta(seconds=10)


class DeskActivities:
    """Built by the worker with its client."""

    def __init__(self, client: Client) -> None:
        self.client = client

    @activity.defn
    async def running_jobs(self, request: RunningJobsInput) -> RunningJobs:
        """The numbers among `request.numbers` whose job workflow is still running."""
        alive = []
        for number in request.numbers:
            try:
                described = await self.client.get_workflow_handle(
                    job_workflow_id(number)
                ).describe()
            except RPCError as error:
                if error.status == RPCStatusCode.NOT_FOUND:
                    continue
                raise
            if described.status == WorkflowExecutionStatus.RUNNING:
                alive.append(number)
        return RunningJobs(numbers=alive)

    @activity.defn
    async def host_policy(self, request: HostPolicyQuery) -> HostPolicy:
        """The desk's host policy, for a workflow that applies it (a push's `Ship`).

        Fails closed: a desk that cannot be asked or has no policy is a non-retryable
        `PolicyError`, and the caller refuses what it was about to do.
        """
        with desk_failures():
            return await self._policy()

    async def _policy(self) -> HostPolicy:
        handle = self.client.get_workflow_handle(DESK_WORKFLOW_ID)
        try:
            state: DeskState = await handle.query(
                DESK_STATE_QUERY, result_type=DeskState, rpc_timeout=POLICY_QUERY_TIMEOUT
            )
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                raise PolicyError(
                    "There is no desk yet, so no host policy: start `codedesk worker` first."
                ) from None
            raise
        if state.policy is None:
            raise PolicyError(
                "The desk has no host policy yet: start (or restart) `codedesk worker` with "
                "this codedesk version."
            )
        return state.policy
