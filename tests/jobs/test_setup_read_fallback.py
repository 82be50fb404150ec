"""The set-up read of an entity that has not written its memo yet: asked by query, in time.

A `Repo` entity started by a codedesk from before the `setup-memo` patch has no set-up in its
memo until its next run. The stand-in here is such an entity on the wire: a workflow with the
entity's id and its state query, and no memo.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from temporalio import workflow
from temporalio.client import Client
from temporalio.worker import Worker

from tests.helpers.waiting import PATIENCE

with workflow.unsafe.imports_passed_through():
    from activities.setup.steps import setup_now
    from desk.names import REPO_STATE_QUERY, repo_workflow_id
    from desk.payloads.repo_state import RepoState
    from desk.records.repo_setup import RepoSetup

SETUP = RepoSetup(setup="make deps", check="make test")


@workflow.defn(name="RepoBeforeTheMemo")
class RepoBeforeTheMemo:
    """Answers the entity's state query; writes no memo."""

    @workflow.init
    def __init__(self, state: RepoState) -> None:
        self.state = state

    @workflow.run
    async def run(self, state: RepoState) -> None:
        await workflow.wait_condition(lambda: False)

    @workflow.query(name=REPO_STATE_QUERY)
    def current(self) -> RepoState:
        return self.state


async def start_old_entity(client: Client, repo: str, task_queue: str) -> None:
    await client.start_workflow(
        RepoBeforeTheMemo.run,
        RepoState(repo=repo, setup=SETUP),
        id=repo_workflow_id(repo),
        task_queue=task_queue,
    )


async def test_an_entity_without_the_memo_is_asked_by_query(client: Client) -> None:
    repo, queue = f"acme/old-{uuid.uuid4().hex[:6]}", f"old-entity-{uuid.uuid4().hex[:8]}"
    async with Worker(client, task_queue=queue, workflows=[RepoBeforeTheMemo]):
        await start_old_entity(client, repo, queue)
        # What is proven is the way (by query), not its speed: a loaded machine may take more
        # than the second a job gives the read.
        assert await setup_now(client, repo, within=timedelta(seconds=PATIENCE)) == SETUP


async def test_an_entity_without_the_memo_that_cannot_answer_reads_as_unknown(
    client: Client,
) -> None:
    """No worker answers its query: the read gives up in time, and the job runs both steps."""
    repo, queue = f"acme/mute-{uuid.uuid4().hex[:6]}", f"mute-entity-{uuid.uuid4().hex[:8]}"
    await start_old_entity(client, repo, queue)
    assert await setup_now(client, repo) is None
