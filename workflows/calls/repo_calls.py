"""A repository's `Repo` entity asked from another workflow, by the entity's names only."""

from __future__ import annotations

from typing import Any

from temporalio import workflow
from temporalio.exceptions import FailureError
from temporalio.workflow import ExternalWorkflowHandle

with workflow.unsafe.imports_passed_through():
    from desk.names import (
        REPO_WORKFLOW_TYPE,
        REQUEST_INTEGRATION_SIGNAL,
        WITHDRAW_INTEGRATION_SIGNAL,
        pushing_memo,
        repo_workflow_id,
    )
    from desk.payloads.jobs import IntegrationRequest, WithdrawIntegration
    from desk.payloads.repo_state import RepoState

from workflows import patches
from workflows.calls.children import start_entity

Entity = ExternalWorkflowHandle[Any]


async def queue_integration(request: IntegrationRequest) -> Entity:
    """From a job: queue its integration at the repository's entity, started if need be.

    The entity almost always runs already, so the job signals it first: one round trip
    instead of a child start that fails before the signal (issue 13). Only when the signal
    finds no entity (the first job on a repository, or one terminated) is it started.
    """
    if workflow.patched(patches.SIGNAL_REPO_FIRST):
        running = repo_handle(request.repo)
        try:
            await running.signal(REQUEST_INTEGRATION_SIGNAL, request)
            return running
        except FailureError:
            pass  # no entity runs for this repository yet: start it, then ask again
    entity = await repo_entity(request.repo, request.host)
    await entity.signal(REQUEST_INTEGRATION_SIGNAL, request)
    return entity


async def withdraw_integration(entity: Entity, job_workflow_id: str) -> bool:
    """From a cancelled job: take its request out of the entity's queue; False when no entity
    runs to take it from."""
    try:
        await entity.signal(
            WITHDRAW_INTEGRATION_SIGNAL, WithdrawIntegration(job_workflow_id=job_workflow_id)
        )
    except FailureError:
        return False
    return True


def repo_handle(repo: str) -> Entity:
    """The repository's entity, by its id alone (whether it runs or not)."""
    return workflow.get_external_workflow_handle(repo_workflow_id(repo))


async def repo_entity(repo: str, host: str = "") -> Entity:
    """From a workflow: the repository's entity, started (as an abandoned child) if need be."""
    entity_id = repo_workflow_id(repo)
    state = RepoState(repo=repo, host=host)
    await start_entity(REPO_WORKFLOW_TYPE, state, id=entity_id, memo=pushing_memo())
    return repo_handle(repo)
