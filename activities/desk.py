"""The desk's one side effect: asking Temporal which jobs still run, to reclaim lost slots."""

from __future__ import annotations

from temporalio import activity
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from desk.models import RunningJobs, RunningJobsInput
from desk.names import job_workflow_id


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
