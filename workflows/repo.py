"""The `Repo` entity: integrations of one clone, one at a time, answered to each job."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities.worktrees import WorktreeActivities
    from desk.models import (
        IntegrationRequest,
        IntegrationResult,
        IntegrationStatus,
        RepoState,
        WithdrawIntegration,
    )
    from workflows.policies import GIT_RETRY, GIT_STEP_TIMEOUT

from workflows.integration_reply import AwaitsIntegration


@workflow.defn(name="Repo")
class RepoEntity:
    """Id `repo-<owner>/<repo>`; holds the integration queue of one clone."""

    @workflow.init
    def __init__(self, state: RepoState) -> None:
        self.state = state
        self.running: IntegrationRequest | None = None

    @workflow.run
    async def run(self, state: RepoState) -> None:
        while True:
            await workflow.wait_condition(
                lambda: bool(self.state.queue) or workflow.info().is_continue_as_new_suggested()
            )
            if not self.state.queue:
                break
            self.running = self.state.queue.pop(0)
            result = await self._integrate(self.running)
            self.state.integrations += 1
            await self._answer(self.running.job_workflow_id, result)
            self.running = None
        await workflow.wait_condition(workflow.all_handlers_finished)
        workflow.continue_as_new(self.state)

    @workflow.signal
    def request_integration(self, request: IntegrationRequest) -> None:
        """Queue a job's branch for integration (a repeated request is not queued twice)."""
        waiting = {queued.job_workflow_id for queued in self.state.queue}
        if self.running is not None:
            waiting.add(self.running.job_workflow_id)
        if request.job_workflow_id not in waiting:
            self.state.queue.append(request)

    @workflow.signal
    async def withdraw_integration(self, request: WithdrawIntegration) -> None:
        """Take a waiting job out of the queue; a running integration finishes and is answered."""
        before = len(self.state.queue)
        self.state.queue = [
            queued
            for queued in self.state.queue
            if queued.job_workflow_id != request.job_workflow_id
        ]
        if len(self.state.queue) < before:
            withdrawn = IntegrationResult(
                status=IntegrationStatus.WITHDRAWN, reason="The job withdrew before integrating."
            )
            await self._answer(request.job_workflow_id, withdrawn)

    @workflow.query
    def queue(self) -> RepoState:
        return self.state

    async def _integrate(self, request: IntegrationRequest) -> IntegrationResult:
        try:
            return await workflow.execute_activity_method(
                WorktreeActivities.integrate,
                request,
                start_to_close_timeout=GIT_STEP_TIMEOUT,
                retry_policy=GIT_RETRY,
            )
        except ActivityError as error:
            cause = error.cause if error.cause is not None else error
            return IntegrationResult(
                status=IntegrationStatus.FAILED,
                reason=f"Integration failed: {cause}",
                branch_kept=True,
            )

    async def _answer(self, job_workflow_id: str, result: IntegrationResult) -> None:
        job = workflow.get_external_workflow_handle(job_workflow_id)
        try:
            await job.signal(AwaitsIntegration.integration_finished, result)
        except Exception:  # the job is gone (terminated): nobody waits for this answer
            workflow.logger.warning(
                "Job %s is gone; its integration answer is dropped.", job_workflow_id
            )
