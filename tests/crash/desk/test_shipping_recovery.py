"""Shipping through crashes: a worker killed mid-push pushes once; receipts outlive the server."""

from __future__ import annotations

import json
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus

from desk.config.settings import DeskSettings, load_settings
from desk.holds.approvals import Decision, HoldVerdict
from desk.names import SHIP_WORKFLOW_TYPE, job_workflow_id, push_workflow_id, repo_workflow_id
from desk.payloads.jobs import JobOutcome
from desk.payloads.repo_state import RepoState
from desk.payloads.ship_payloads import PushStatus
from desk.payloads.ship_requests import BranchPushStatus, ShipRequestStatus
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.ship_client import ShippingClient
from tests.crash.crashes import (
    REPO,
    ResumeClock,
    assert_a_later_job_runs,
    assert_no_leftovers,
    kill,
    restart_server,
    server_env,
)
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import settings_env
from tests.helpers.job_waits import open_ids
from tests.helpers.jobs.shipping import answer, commit, refs, slow_origin
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, until
from workers.devserver import DevServer
from workers.temporal.client import connect
from workflows.repo.repo_entity import RepoEntity
from workflows.shipping.ship import Ship


async def test_worker_killed_between_push_and_record_pushes_once_and_reports_pushed(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    env = settings_env(settings)
    first = start_worker(env)
    desk = DeskClient(client, settings)
    await desk.add_repo(REPO, str(origin))
    clone = settings.shelf_dir / "acme" / "api"
    head = commit(clone, "a.txt", "a\n", "ship me")
    shipping = ShippingClient(client, settings)
    await shipping.change_report(REPO)

    # The origin records each push, then holds `git push` open until the gate opens: the SHA is
    # on the remote while the push activity has not returned, so the workflow cannot know yet.
    marker, gate = tmp_path / "pushes.log", tmp_path / "gate"
    slow_origin(origin, marker, gate)
    handle, approval = await shipping.request_push(REPO, head)
    await answer(client, approval, Decision.APPROVE, settings.owner)
    await until(marker.exists, "the push to reach the origin")
    assert git(origin, "rev-parse", "main") == head
    await kill(first)
    gate.touch()  # let the orphaned git (the dead worker's child) finish

    resume_clock.restarted()

    start_worker(env)
    result = await awaited(handle.result(), "the workflow's result")
    await resume_clock.report(client, handle.id)
    assert result.status == PushStatus.PUSHED, result
    assert result.already, "the retried push must find the remote at the SHA, not push again"
    assert (result.sha, result.branch, result.approval_id) == (head, "main", approval)
    assert marker.read_text().splitlines() == ["pushed"], "pushed more than once"
    assert refs(origin) == {"refs/heads/main": head, "HEAD": "refs/heads/main"}
    described = await handle.describe()
    assert described.status == WorkflowExecutionStatus.COMPLETED
    entity = client.get_workflow_handle_for(RepoEntity.run, repo_workflow_id(REPO))
    state: RepoState = await entity.query(RepoEntity.current)
    assert state.pushing is None and state.pushes == 1, state
    assert (await entity.describe()).status == WorkflowExecutionStatus.RUNNING
    assert_no_leftovers(clone)
    await assert_a_later_job_runs(env, tmp_path)


async def test_a_receipt_survives_a_server_restart(
    own_server: list[DevServer],
    origin: Path,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    server = own_server[0]
    home = tmp_path / "home"
    env = server_env(server, home)
    config = load_settings(home=home, temporal_address=server.address)
    worker = start_worker(env)
    client = await connect(config)
    await DeskClient(client, config).add_repo(REPO, str(origin))
    head = commit(config.shelf_dir / "acme" / "api", "a.txt", "a\n", "ship me")
    report = await ShippingClient(client, config).change_report(REPO)
    assert report.head == head

    # Nothing in memory survives: the worker and the server both go.
    await kill(worker)
    await restart_server(own_server)
    resume_clock.restarted()
    start_worker(env)

    client = await connect(config)
    entity = client.get_workflow_handle_for(RepoEntity.run, repo_workflow_id(REPO))

    async def answered() -> bool:
        try:
            await entity.query(RepoEntity.current)
        except Exception:
            return False
        return True

    await until(answered, "the Repo entity to answer on the new worker")
    shipping = ShippingClient(client, config)
    assert await shipping.receipt(REPO, head) == report
    handle, approval = await shipping.request_push(REPO, head)
    assert handle.id == push_workflow_id(REPO, head)
    await answer(client, approval, Decision.APPROVE, config.owner)
    result = await awaited(handle.result(), "the workflow's result")
    await resume_clock.report(client, repo_workflow_id(REPO))
    assert result.status == PushStatus.PUSHED and not result.already, result
    assert git(origin, "rev-parse", "main") == head
    assert_no_leftovers(config.shelf_dir / "acme" / "api")
    await assert_a_later_job_runs(env, tmp_path)


async def test_worker_killed_after_an_agents_push_was_approved_ships_it_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    gates: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    env = settings_env(settings)
    first = start_worker(env)
    desk = DeskClient(client, settings)
    await desk.add_repo(REPO, str(origin))
    go_on = gates / "go-on"
    plain = json.dumps({"tool": "Bash", "input": {"command": "git push origin HEAD:main"}})
    number = await desk.start_job(
        REPO,
        "greet and push",
        agent_command=agent(
            "write:hello.txt=hi",
            "commit:greet",
            f"hold:{plain}",
            "say:the held call",  # skipped: a refused hold skips the call it held
            f"wait:{go_on}",
        ),
    )
    approvals = ApprovalsClient(client)
    [ident] = await open_ids(approvals)
    await answer(client, ident, Decision.APPROVE, settings.owner)
    job = client.get_workflow_handle(job_workflow_id(number))

    async def answered() -> bool:
        kinds = [event.event_type async for event in job.fetch_history_events()]
        return EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED in kinds

    # The job recorded the approval and answered the agent; the push is not asked for yet.
    await until(answered, "the job to answer the agent's approved push")
    await kill(first)
    go_on.touch()
    resume_clock.restarted()

    start_worker(env)
    report = await awaited(desk.wait(number), f"job {number}'s report")
    await resume_clock.report(client, job.id)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.agent_attempts == 2, "the worker was not killed while the agent ran"
    # The retried agent asked again; its identical call joined the approved request at once.
    assert "codedesk will ask to push your commits to main" in report.output, report
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.SHIP_REQUESTED], report
    [shipped] = report.ship_requests
    assert (shipped.status, shipped.sha) == (ShipRequestStatus.REQUESTED, report.head), shipped
    assert shipped.agent_approvals == [ident]
    assert git(origin, "rev-parse", "main") != report.head

    marker = tmp_path / "pushes.log"
    slow_origin(origin, marker, gates / "open")
    (gates / "open").touch()
    await answer(client, shipped.push_approval_id, Decision.APPROVE, settings.owner)
    ship = client.get_workflow_handle_for(Ship.run, push_workflow_id(REPO, report.head))
    result = await awaited(ship.result(), "the push's result")
    assert result.status == PushStatus.PUSHED and not result.already, result
    assert marker.read_text().splitlines() == ["pushed"], "pushed more than once"
    assert git(origin, "rev-parse", "main") == report.head
    pushes = [
        found.id async for found in client.list_workflows(f"WorkflowType = '{SHIP_WORKFLOW_TYPE}'")
    ]
    assert pushes in ([], [ship.id]), pushes  # visibility may lag; never a second push


async def test_worker_killed_inside_an_agents_approved_branch_push_pushes_it_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    tmp_path: Path,
    gates: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
) -> None:
    env = settings_env(settings)
    first = start_worker(env)
    desk = DeskClient(client, settings)
    await desk.add_repo(REPO, str(origin))
    feature = json.dumps({"tool": "Bash", "input": {"command": "git push origin HEAD:feature"}})
    number = await desk.start_job(
        REPO,
        "push a branch",
        agent_command=agent("write:a.txt=a", "commit:a", f"hold:{feature}", "say:held"),
    )
    approvals = ApprovalsClient(client)
    [ident] = await open_ids(approvals)
    [state] = [s for s in await approvals.open_approvals() if s.approval_id == ident]
    sha = state.request.push_head
    marker, gate = tmp_path / "pushes.log", tmp_path / "gate"
    slow_origin(origin, marker, gate)
    await answer(client, ident, Decision.APPROVE, settings.owner)
    # The branch is on the origin while the push activity has not returned.
    await until(marker.exists, "the branch push to reach the origin")
    assert git(origin, "rev-parse", "feature") == sha
    await kill(first)
    gate.touch()  # let the orphaned git (the dead worker's child) finish
    resume_clock.restarted()

    start_worker(env)
    report = await awaited(desk.wait(number), f"job {number}'s report")
    await resume_clock.report(client, job_workflow_id(number))
    [pushed] = report.branch_pushes
    assert (pushed.status, pushed.sha, pushed.branch) == (BranchPushStatus.PUSHED, sha, "feature")
    assert pushed.already, "the retried push must find the branch at the SHA, not push again"
    assert marker.read_text().splitlines() == ["pushed"], "pushed more than once"
    assert git(origin, "rev-parse", "feature") == sha
