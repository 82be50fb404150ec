"""`codedesk patches` and doctor's patch line on a real dev server, with workflows on old code.

Small stand-ins beside the test run under the real workflow types' names: a `Repo` started by
code from before its patches (it asks none), one by code that asks them all, and a `CodingJob`
of old code whose history this version cannot replay. A real job, started by this version and
waiting on its agent, stands beside them.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import Client, WorkflowHandle
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from desk.config.settings import DeskSettings
from desk.names import JOB_WORKFLOW_TYPE, REPO_WORKFLOW_TYPE
from desk.payloads.jobs import JobInput
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.patch_standings import CHANGE_VERSION, PatchStanding, patch_standings
from surfaces.doctor_checks import run_checks
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, settings_env
from tests.helpers.waiting import until
from workflows import patches
from workflows.patches import PATCHES, PatchState

REPO_PATCHES = [patch.name for patch in PATCHES if REPO_WORKFLOW_TYPE in patch.asked_by]
RETIRED = [patch.name for patch in PATCHES if patch.state == PatchState.DEPRECATED]


@workflow.defn(name=REPO_WORKFLOW_TYPE)
class RepoOfOldCode:
    """A `Repo` entity of code from before its patches: it asks none, and waits."""

    @workflow.run
    async def run(self, state: dict[str, str]) -> None:
        await workflow.wait_condition(lambda: False)


@workflow.defn(name=REPO_WORKFLOW_TYPE)
class RepoOfNewCode:
    """A `Repo` entity that has passed every patch of its type on the new branch."""

    @workflow.run
    async def run(self, state: dict[str, str]) -> None:
        for name in REPO_PATCHES:
            workflow.patched(name)
        await workflow.wait_condition(lambda: False)


@workflow.defn(name=JOB_WORKFLOW_TYPE)
class JobOfOldCode:
    """A job whose history no code of this version makes: a timer first."""

    @workflow.run
    async def run(self, job: JobInput) -> None:
        await asyncio.sleep(3600)


class OldCode:
    """Stand-ins started on workers of their own, each on its own task queue; terminated, and
    their workers stopped, at the end."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.workers: list[asyncio.Task[None]] = []
        self.handles: list[WorkflowHandle[object, object]] = []

    async def start(self, defined: type, arg: object) -> str:
        """Start `defined` and wait until its first workflow task is done; its workflow id."""
        queue = f"old-code-{uuid.uuid4().hex[:8]}"
        worker = Worker(
            self.client,
            task_queue=queue,
            workflows=[defined],
            workflow_runner=UnsandboxedWorkflowRunner(),
        )
        self.workers.append(asyncio.get_running_loop().create_task(worker.run()))
        handle = await self.client.start_workflow(
            workflow._Definition.must_from_class(defined).name,
            arg,
            id=f"{defined.__name__}-{uuid.uuid4().hex[:6]}",
            task_queue=queue,
        )
        self.handles.append(handle)

        async def first_task_done() -> bool:
            events = (await handle.fetch_history()).events
            done = "workflow_task_completed_event_attributes"
            return any(event.HasField(done) for event in events)

        await until(first_task_done, f"{defined.__name__}'s first workflow task")
        return handle.id

    async def stop(self) -> None:
        for handle in self.handles:
            await handle.terminate("the test is over")
        for task in self.workers:
            task.cancel()
        await asyncio.gather(*self.workers, return_exceptions=True)


@pytest.fixture
async def stand_ins(client: Client) -> AsyncIterator[OldCode]:
    old = OldCode(client)
    try:
        yield old
    finally:
        await old.stop()


@pytest.fixture
async def old_code(stand_ins: OldCode) -> dict[str, str]:
    job = JobInput(number=90, repo="acme/old", task="old", agent_command="true", admitted=False)
    return {
        "old repo": await stand_ins.start(RepoOfOldCode, {"repo": "acme/old"}),
        "new repo": await stand_ins.start(RepoOfNewCode, {"repo": "acme/new"}),
        "old job": await stand_ins.start(JobOfOldCode, job),
    }


def by_name(standings: list[PatchStanding]) -> dict[str, PatchStanding]:
    return {standing.patch.name: standing for standing in standings}


async def test_the_dev_server_lists_the_patches_a_run_recorded(
    client: Client, old_code: dict[str, str]
) -> None:
    """The SDK's core writes each patch a run asks into `TemporalChangeVersion`, and the server
    answers a query on it: what the listing below stands on."""
    query = f"TemporalChangeVersion = '{patches.SETUP_MEMO}'"
    found = [execution.id async for execution in client.list_workflows(query)]
    assert found == [old_code["new repo"]]
    new = await client.get_workflow_handle(old_code["new repo"]).describe()
    assert set(new.typed_search_attributes.get(CHANGE_VERSION) or []) == set(REPO_PATCHES)


async def test_running_workflows_of_old_code_are_listed_for_each_patch_they_may_need(
    desk: DeskClient, clone: Path, gates: Path, old_code: dict[str, str]
) -> None:
    number = await desk.start_job("acme/api", "waits", agent_command=agent(f"wait:{gates / 'go'}"))
    job = f"job-{number}"
    await until(lambda: _working(desk, number), f"job {number} to work")

    standings = by_name(await patch_standings(desk.client))

    for name in REPO_PATCHES:
        listed = {run.workflow_id for run in standings[name].may_need}
        assert old_code["old repo"] in listed, name
        assert old_code["new repo"] not in listed, name
    for name in RETIRED:
        standing = standings[name]
        assert {run.workflow_id for run in standing.may_need} >= {job, old_code["old job"]}
        assert set(standing.stuck) == {old_code["old job"]}, "this version replays its own job"
        assert "Nondeterminism" in standing.stuck[old_code["old job"]]
    assert not standings[patches.SIGNAL_REPO_FIRST].stuck, "an active patch's runs are not stuck"
    (gates / "go").touch()
    await desk.wait(number)


async def test_the_command_and_doctor_fail_for_a_run_on_a_retired_branch(
    desk: DeskClient, settings: DeskSettings, clone: Path, tmp_path: Path, old_code: dict[str, str]
) -> None:
    listed = await run_cli(settings_env(settings), "patches", "--json", cwd=tmp_path)
    assert listed.returncode == 1, listed.stderr
    shown = {entry["name"]: entry for entry in json.loads(listed.stdout)}
    assert set(shown) == {patch.name for patch in PATCHES}
    assert old_code["old job"] in shown[patches.JOB_COST_ATTRIBUTE]["cannot_replay"]
    assert old_code["old repo"] in shown[patches.SETUP_MEMO]["may_need_old_branch"]
    assert shown[patches.SETUP_MEMO]["old_branch_recording"] == "repo_entity"

    checks = {check.name: check for check in await run_checks(settings)}
    assert checks["patches"].status == "fail"
    assert old_code["old job"] in checks["patches"].detail


async def test_doctor_says_which_patches_are_still_needed_when_none_is_stuck(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path, stand_ins: OldCode
) -> None:
    old = await stand_ins.start(RepoOfOldCode, {"repo": "acme/old"})
    checks = {check.name: check for check in await run_checks(settings)}
    assert checks["patches"].status == "ok", checks["patches"]
    assert "may still be needed by" in checks["patches"].detail
    printed = await run_cli(settings_env(settings), "patches", cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert "may still need its old branch" in printed.stdout
    assert old in printed.stdout


async def _working(desk: DeskClient, number: int) -> bool:
    _, status = await desk.status(number)
    return status.phase.value == "working"
