"""A held call learns its approval in the workflow task that records the person's answer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowUpdateFailedError, WorkflowUpdateStage
from temporalio.exceptions import ApplicationError

from desk.config.settings import DeskSettings
from desk.holds.approvals import (
    Decision,
    OutcomeKind,
    OutcomeWatch,
    Principal,
    WithdrawInput,
    approval_id,
)
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.holds.approval_workflows import Handle, answer, outcome_of, request, start
from tests.helpers.holds.hook_channel import HOOK, PUSH, REPO, Agent, decision
from tests.helpers.job_waits import open_ids
from tests.helpers.waiting import awaited
from workers.worker import build_worker
from workflows.shipping.approval import Approval

WATCH = OutcomeWatch(watcher="a test")


async def updates(handle: Handle) -> dict[str, tuple[int, int, str]]:
    """Each update by its name: (event accepting it, workflow task completing it or 0, its
    input)."""
    names: dict[int, tuple[str, str]] = {}
    found: dict[str, tuple[int, int, str]] = {}
    task = 0
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
            task = event.event_id
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
            accepted = event.workflow_execution_update_accepted_event_attributes.accepted_request
            data = accepted.input.args.payloads[0].data.decode() if accepted.input.args else ""
            names[event.event_id] = (accepted.input.name, data)
            found[accepted.input.name] = (event.event_id, 0, data)
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
            completed = event.workflow_execution_update_completed_event_attributes
            name, data = names[completed.accepted_event_id]
            found[name] = (completed.accepted_event_id, task, data)
    return found


@pytest.mark.parametrize("kind", [OutcomeKind.APPROVED, OutcomeKind.DECLINED])
async def test_a_watch_completes_in_the_task_that_records_the_answer(
    client: Client, settings: DeskSettings, queue: str, kind: OutcomeKind
) -> None:
    given = Decision.APPROVE if kind == OutcomeKind.APPROVED else Decision.DECLINE
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, request())
        watching = await handle.start_update(
            Approval.outcome, WATCH, wait_for_stage=WorkflowUpdateStage.ACCEPTED
        )
        result = await handle.execute_update(Approval.answer, answer(given))
        watched = await awaited(watching.result(), "watching.result()")
        outcome = await outcome_of(handle)
    assert result.counted and watched == result.outcome == outcome, (watched, result)
    assert watched.kind == kind
    seen = await updates(handle)
    # One workflow task records the answer and answers the watch: the watcher learns a recorded
    # answer in the same round trip as the person who gave it.
    assert seen["outcome"][1] == seen["answer"][1], seen


async def test_a_watch_learns_a_withdrawal(
    client: Client, settings: DeskSettings, queue: str
) -> None:
    async with build_worker(client, settings, task_queue=queue):
        handle = await start(client, queue, request())
        watching = await handle.start_update(
            Approval.outcome, WATCH, wait_for_stage=WorkflowUpdateStage.ACCEPTED
        )
        await handle.signal(Approval.withdraw, WithdrawInput(reason="not now"))
        watched = await awaited(watching.result(), "watching.result()")
    assert watched.kind == OutcomeKind.WITHDRAWN and watched.note == "not now"


async def test_a_settled_approval_refuses_a_watch(
    client: Client, settings: DeskSettings, queue: str
) -> None:
    handle = await start(client, queue, request())
    await handle.signal(Approval.approve, answer())
    # The watch is admitted only once a worker runs its validator: the answer is ahead of it.
    late = asyncio.create_task(handle.execute_update(Approval.outcome, WATCH))
    await asyncio.sleep(0.5)
    async with build_worker(client, settings, task_queue=queue):
        with pytest.raises(WorkflowUpdateFailedError) as failed:
            await awaited(late, "late")
        await outcome_of(handle)
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == "ApprovalSettled", cause


async def test_the_channel_lets_an_approved_call_run_on_the_recorded_answer(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    job = Agent(desk, gates)
    await job.start()
    waiting = asyncio.create_task(job.hook(PUSH))
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    assert ident == approval_id(f"job-{job.number}", "Bash", PUSH["input"])
    handle = desk.client.get_workflow_handle_for(Approval.run, ident)
    for _ in range(300):  # the channel watches the approval once it is open
        if "outcome" in await updates(handle):
            break
        await asyncio.sleep(0.1)
    result, _ = await approvals.answer(ident, Decision.APPROVE, Principal(id=desk.settings.owner))
    assert result.counted, result
    allowed = await awaited(waiting, "waiting")
    assert allowed.returncode == 0 and decision(allowed) == "allow", allowed
    assert ident.encode() in allowed.stdout

    seen = await updates(handle)
    watched, answered = seen["outcome"], seen["answer"]
    assert f"the hold channel of job {job.number}" in watched[2], watched
    assert watched[0] < answered[0] and watched[1] == answered[1], seen

    job.go_on.touch()
    report = await awaited(desk.wait(job.number), f"job {job.number}'s report")
    assert report.held_calls == [], report.held_calls  # approved in time: nothing to report
    assert report.tool_calls == 1


async def accepted_holds(desk: DeskClient, number: int) -> int:
    """How many `hold` Updates the job has accepted."""
    count = 0
    async for event in desk.job(number).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
            accepted = event.workflow_execution_update_accepted_event_attributes
            count += accepted.accepted_request.input.name == "hold"
    return count


async def test_many_identical_waiting_calls_leave_room_for_the_answer(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    """A workflow takes at most 10 Updates in flight: the channel watches each approval once,
    so ten identical calls waiting at once (the most a job takes) still let a person answer."""
    await desk.add_repo(REPO, str(origin))
    job = Agent(desk, gates)
    await job.start()
    hooks = [
        await asyncio.create_subprocess_exec(
            *HOOK,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=job.env,
        )
        for _ in range(10)
    ]
    waiting = [asyncio.create_task(hook.communicate(json.dumps(PUSH).encode())) for hook in hooks]
    [ident] = await open_ids(ApprovalsClient(desk.client))
    handle = desk.client.get_workflow_handle_for(Approval.run, ident)
    for _ in range(600):
        if await accepted_holds(desk, job.number) == 10 and "outcome" in await updates(handle):
            break
        await asyncio.sleep(0.1)
    owner = Principal(id=desk.settings.owner)
    result, _ = await ApprovalsClient(desk.client).answer(ident, Decision.APPROVE, owner)
    assert result.counted, result
    answers = await awaited(asyncio.gather(*waiting), "asyncio.gather(*waiting)")
    for hook, (out, err) in zip(hooks, answers, strict=True):
        assert hook.returncode == 0 and b'"allow"' in out, (hook.returncode, out, err)
    watches = [
        event
        async for event in handle.fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
        and event.workflow_execution_update_accepted_event_attributes.accepted_request.input.name
        == "outcome"
    ]
    assert len(watches) == 1, watches
    job.go_on.touch()
    await awaited(desk.wait(job.number), f"job {job.number}'s report")
