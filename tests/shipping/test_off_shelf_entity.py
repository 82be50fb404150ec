"""A repository on no shelf has no `Repo` entity: none is started for it, and one left running
by an older codedesk ends once a worker starts (issue 43, item 2)."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

from temporalio import workflow
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from desk.config.settings import DeskSettings
from desk.names import REPO_WORKFLOW_TYPE, repo_workflow_id
from desk.payloads.repo_state import RepoState
from tests.helpers.cli_helpers import assert_refused, run_cli, settings_env, shown
from tests.helpers.jobs.shipping import commit
from tests.helpers.waiting import awaited, until
from workers.hosting import serve_worker


async def entity_status(client: Client, repo: str) -> WorkflowExecutionStatus | None:
    """The status of `repo`'s entity; None when none was ever started."""
    try:
        described = await client.get_workflow_handle(repo_workflow_id(repo)).describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return None
        raise
    return described.status


async def looked(entity: WorkflowHandle[Any, Any]) -> bool:
    """Whether the entity has taken the answer of its look at the shelf (a task after it)."""
    events = [event async for event in entity.fetch_history_events()]
    looks = {
        event.event_id
        for event in events
        if event.activity_task_scheduled_event_attributes.activity_type.name == "clone_on_shelf"
    }
    answered = [
        event.event_id
        for event in events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
        and event.activity_task_completed_event_attributes.scheduled_event_id in looks
    ]
    return bool(answered) and any(
        event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
        and event.event_id > answered[0]
        for event in events
    )


async def test_a_mistyped_repository_starts_no_entity(
    settings: DeskSettings, clone: Path, tmp_path: Path
) -> None:
    env = settings_env(settings)

    async def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return await run_cli(env, *args, cwd=tmp_path)

    reported = await cli("report", "acme/apj")
    reason = assert_refused(reported, "'acme/apj' is not on the shelf", "did you mean acme/api?")
    assert "Nothing was reported." in reason, reason
    set_up = await cli("repo", "set", "acme/apj", "--setup", "make")
    assert_refused(set_up, "'acme/apj' is not on the shelf", "Nothing was set.")
    client = await Client.connect(settings.temporal_address, namespace=settings.namespace)
    assert await entity_status(client, "acme/apj") is None
    # The repository on the shelf has its entity, which looked at the shelf and stays.
    commit(clone, "a.txt", "one\n", "add a")
    made = await cli("report", "acme/api")
    assert made.returncode == 0, shown(made)
    entity = client.get_workflow_handle(repo_workflow_id("acme/api"))
    await until(lambda: looked(entity), "the entity's look at the shelf")
    assert await entity_status(client, "acme/api") == WorkflowExecutionStatus.RUNNING


@workflow.defn(name=REPO_WORKFLOW_TYPE)
class OlderRepoEntity:
    """A `Repo` entity as an older codedesk left one: started, its first task done, waiting."""

    @workflow.run
    async def run(self, state: RepoState) -> None:
        await workflow.wait_condition(lambda: False)


async def test_an_entity_an_older_codedesk_left_for_no_clone_ends_when_a_worker_starts(
    client: Client, settings: DeskSettings, tmp_path: Path
) -> None:
    stray = repo_workflow_id("me/tyx")
    async with Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[OlderRepoEntity],
        workflow_runner=UnsandboxedWorkflowRunner(),
    ):
        handle = await client.start_workflow(
            OlderRepoEntity.run, RepoState(repo="me/tyx"), id=stray, task_queue=settings.task_queue
        )

        async def first_task_done() -> bool:
            return len([event async for event in handle.fetch_history_events()]) >= 4

        await until(first_task_done, "the older entity's first task")
    assert await entity_status(client, "me/tyx") == WorkflowExecutionStatus.RUNNING

    stop = asyncio.Event()
    ready = asyncio.Event()
    worker = asyncio.create_task(serve_worker(client, settings, stop, ready.set))
    try:
        await awaited(ready.wait(), "the worker to start")

        async def ended() -> bool:
            return await entity_status(client, "me/tyx") == WorkflowExecutionStatus.COMPLETED

        await until(ended, "the stray entity to end")
    finally:
        stop.set()
        await worker
