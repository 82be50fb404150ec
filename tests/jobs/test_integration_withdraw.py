"""A withdrawal the `Repo` entity has no request for is answered at once.

A job cancelled so early that the core dropped its integration request still withdraws it: the
entity never heard of the job, and before the answer for that case the job waited out its
two-minute withdrawal wait for a reply that could not come. The stand-in here is such a job on
the wire: a workflow with the job's answer signal that returns the first answer it hears.
"""

from __future__ import annotations

import uuid

from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import Worker

with workflow.unsafe.imports_passed_through():
    from desk.config.settings import DeskSettings
    from desk.names import REPO_WORKFLOW_TYPE, WITHDRAW_INTEGRATION_SIGNAL, repo_workflow_id
    from desk.payloads.jobs import (
        IntegrationResult,
        IntegrationStatus,
        ReasonKind,
        WithdrawIntegration,
    )
    from desk.payloads.repo_state import RepoState
    from tests.helpers.waiting import awaited
    from workers.worker import build_worker


@workflow.defn(name="JobThatNeverAsked")
class JobThatNeverAsked:
    """Waits for the entity's answer to an integration request it never sent."""

    def __init__(self) -> None:
        self.answer: IntegrationResult | None = None

    @workflow.run
    async def run(self) -> IntegrationResult:
        await workflow.wait_condition(lambda: self.answer is not None)
        assert self.answer is not None
        return self.answer

    @workflow.signal
    def integration_finished(self, result: IntegrationResult) -> None:
        self.answer = self.answer or result


async def test_a_withdrawal_of_a_request_that_never_came_is_answered_withdrawn(
    client: Client, settings: DeskSettings
) -> None:
    repo, queue = f"acme/early-{uuid.uuid4().hex[:6]}", f"early-job-{uuid.uuid4().hex[:8]}"
    async with (
        build_worker(client, settings),
        Worker(client, task_queue=queue, workflows=[JobThatNeverAsked]),
    ):
        await client.start_workflow(
            REPO_WORKFLOW_TYPE,
            RepoState(repo=repo, host=settings.host),
            id=repo_workflow_id(repo),
            task_queue=settings.task_queue,
        )
        job = await client.start_workflow(
            JobThatNeverAsked.run, id=f"early-{uuid.uuid4().hex[:8]}", task_queue=queue
        )
        entity = client.get_workflow_handle(repo_workflow_id(repo))
        await entity.signal(
            WITHDRAW_INTEGRATION_SIGNAL, WithdrawIntegration(job_workflow_id=job.id)
        )
        answer = await awaited(job.result(), "the entity's answer to the withdrawal")
    assert answer.status == IntegrationStatus.WITHDRAWN, answer
    assert answer.reason_kind == ReasonKind.INTEGRATION_WITHDRAWN and answer.branch_kept, answer
