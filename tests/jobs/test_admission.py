"""The desk refuses, before a number is given, a job its host cannot run: for every client."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from desk.config.settings import DeskSettings
from desk.errors import AgentCommandError, CloneMissingError
from desk.names import DESK_WORKFLOW_ID, PUSHING_MEMO, repo_workflow_id
from desk.payloads.jobs import AdmitInput, JobInput, JobOutcome
from desk.payloads.repo_state import RepoState
from desk.payloads.ship_payloads import PushRequest
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agent_pids import agent_tag, running_agent
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import assert_refused, run_cli, settings_env
from tests.helpers.jobs.shipping import commit, owner_client, slow_origin
from tests.helpers.waiting import awaited, eventually, until
from workers.desk_handle import desk_start
from workflows.desk.desk_entity import Desk
from workflows.repo.repo_entity import RepoEntity

REPO = "acme/api"


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    """One running job at a time, so a second job waits in the queue."""
    return settings.model_copy(update={"max_workers": 1})


def job(repo: str, command: str) -> AdmitInput:
    return AdmitInput(job=JobInput(number=0, repo=repo, task="work", agent_command=command))


async def admit_by_sdk(client: Client, settings: DeskSettings, request: AdmitInput) -> object:
    """What a script with the SDK (or any surface) does: the desk's own update, no CLI."""
    return await client.execute_update_with_start_workflow(
        Desk.admit, request, start_workflow_operation=desk_start(settings)
    )


async def numbers_given(client: Client) -> int:
    state = await client.get_workflow_handle_for(Desk.run, DESK_WORKFLOW_ID).query(Desk.current)
    return state.last_number


async def test_an_unknown_repository_is_refused_before_a_number(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await admit_by_sdk(desk.client, settings, job("acme/nope", agent("say:hi")))
    cause = refused.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == "CloneMissingError"
    assert "codedesk repo add acme/nope" in cause.message
    with pytest.raises(CloneMissingError, match="not on the shelf"):
        await desk.submit_job("acme/nope", "work")
    result = await run_cli(settings_env(settings), "task", "acme/nope", "work", cwd=tmp_path)
    assert_refused(result, "'acme/nope' is not on the shelf", "codedesk repo add acme/nope")
    assert await numbers_given(desk.client) == 0


async def test_an_agent_program_missing_on_the_workers_host_is_refused(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    missing = "codedesk-no-such-agent-program"
    with pytest.raises(AgentCommandError, match=f"'{missing}' is not installed on the worker"):
        await desk.submit_job(REPO, "work", agent_command=f"{missing} --go {{task}}")
    with pytest.raises(AgentCommandError, match="is not installed on the worker"):
        await desk.submit_job(REPO, "work", agent_command=f"{tmp_path}/absent --go")
    env = settings_env(settings)
    result = await run_cli(env, "task", REPO, "work", "--agent-command", missing, cwd=tmp_path)
    assert_refused(result, "not installed on the worker's host", "--agent-command")
    assert await numbers_given(desk.client) == 0
    number = await desk.start_job(REPO, "work", agent_command=agent("say:hi"))
    assert number == 1


async def test_no_job_is_admitted_while_a_push_of_its_repository_runs(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    head, marker, gate = await a_commit_to_push(desk, origin, tmp_path)
    shipping = await owner_client(desk, settings, REPO)
    await shipping.change_report(REPO)
    handle, _ = await shipping.request_push(REPO, head)
    try:
        await until(marker.exists, "the push to reach the origin")
        entity = desk.client.get_workflow_handle(repo_workflow_id(REPO))
        assert (await memo_of(entity))[PUSHING_MEMO] == head
        await assert_refused_while_pushing(desk, settings, head)
    finally:
        gate.touch()
    await handle.result()
    assert (await memo_of(entity))[PUSHING_MEMO] == ""
    admitted = await admit_by_sdk(desk.client, settings, job(REPO, agent("say:hi")))
    assert admitted is not None
    assert await numbers_given(desk.client) == 1


async def test_an_entity_without_the_push_memo_is_asked_whether_a_push_runs(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    # An entity an older codedesk started has no memo saying which push runs: the check asks
    # the entity itself. This one starts (as a continued entity would) in the middle of a push.
    head, marker, gate = await a_commit_to_push(desk, origin, tmp_path)
    receipt = await (await owner_client(desk, settings, REPO)).change_report(REPO)
    entity = desk.client.get_workflow_handle(repo_workflow_id(REPO))
    await entity.terminate("replaced by an entity without the memo")
    pushing = PushRequest(ship_workflow_id="push-gone", receipt=receipt)
    entity = await desk.client.start_workflow(
        RepoEntity.run,
        RepoState(repo=REPO, receipts={head: receipt}, pushing=pushing),
        id=repo_workflow_id(REPO),
        task_queue=settings.task_queue,
    )
    try:
        await until(marker.exists, "the push to reach the origin")
        assert PUSHING_MEMO not in await memo_of(entity)
        await assert_refused_while_pushing(desk, settings, head)
    finally:
        gate.touch()
    # The push's end is said in the memo, as every later push's start and end will be.
    await eventually(
        lambda: memo_of(entity), lambda memo: memo.get(PUSHING_MEMO) == "", "the push to end"
    )
    assert await admit_by_sdk(desk.client, settings, job(REPO, agent("say:hi"))) is not None
    assert await numbers_given(desk.client) == 1


async def a_commit_to_push(
    desk: DeskClient, origin: Path, tmp_path: Path
) -> tuple[str, Path, Path]:
    """REPO on the shelf with a new commit, its origin holding each push until `gate` exists:
    the commit, the file each push marks on arrival, and the gate."""
    clone = (await desk.add_repo(REPO, str(origin))).path
    marker, gate = tmp_path / "pushes.log", tmp_path / "gate"
    slow_origin(origin, marker, gate)
    return commit(Path(clone), "a.txt", "a\n", "a"), marker, gate


async def assert_refused_while_pushing(desk: DeskClient, settings: DeskSettings, head: str) -> None:
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await admit_by_sdk(desk.client, settings, job(REPO, agent("say:hi")))
    cause = refused.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == "RepoBusyError"
    assert f"A push of {head[:12]} to {REPO} runs now" in cause.message
    assert await numbers_given(desk.client) == 0


async def memo_of(handle: WorkflowHandle[Any, Any]) -> Mapping[str, Any]:
    return await (await handle.describe()).memo()


async def test_reasons_of_jobs_refused_later_read_as_messages_without_a_class_name(
    desk: DeskClient, origin: Path, tmp_path: Path, gates: Path
) -> None:
    clone = Path((await desk.add_repo(REPO, str(origin))).path)
    go = gates / "go"
    tag = agent_tag()
    first = await desk.start_job(REPO, "wait", agent_command=agent(tag, f"wait:{go}"))
    second = await desk.submit_job(REPO, "greet", agent_command=agent("say:hi"))
    assert second.position == 1  # queued behind the first: admitted while the clone was there
    # Deleted once the agent runs: a sandbox started after the deletion has no clone to bind.
    await running_agent(desk.settings.home, first, tag)
    shutil.rmtree(clone)  # gone before the first integrates and before the second starts
    go.touch()
    missing = f"Repository '{REPO}' is not on the shelf"
    failed = await awaited(desk.wait(first), f"job {first}'s report")
    assert failed.outcome == JobOutcome.FAILED, failed
    assert failed.reason.startswith(f"Integration failed: {missing}"), failed.reason
    refused = await awaited(desk.wait(second.number), f"job {second.number}'s report")
    assert refused.outcome == JobOutcome.REFUSED, refused
    assert refused.reason.startswith(missing), refused.reason
    assert "Error" not in failed.reason + refused.reason
