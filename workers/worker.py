"""The codedesk worker: which workflows and activities run on the shared and the host's queue."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from temporalio.client import Client
from temporalio.worker import Worker

from activities.agent.run import AgentActivities
from activities.checks.admission_checks import AdmissionActivities
from activities.checks.host_checks import HostActivities
from activities.desk import DeskActivities
from activities.diagnostics import set_diagnostic_chars
from activities.holds.classify import classify_call_activity
from activities.hook_deliveries import ResultActivities
from activities.jobs.worktrees import WorktreeActivities
from activities.setup.steps import SetupActivities
from activities.shelf.clones import ShelfActivities
from activities.ship.branch_push import BranchPushActivities
from activities.ship.ship_activities import ShipActivities
from activities.ship.ship_request import ShipRequestActivities
from desk.config.settings import DeskSettings
from desk.names import host_task_queue
from workers.refusal_log import RefusalLog
from workers.workflow_runner import WORKFLOW_RUNNER
from workflows.delivery.outbox import Outbox
from workflows.delivery.result_delivery import ResultDelivery
from workflows.desk.desk_entity import Desk
from workflows.host.host_check_workflow import HostCheck
from workflows.host.session_keep import SessionKeep
from workflows.host.shelf import AddRepo, JobDiffer, ListRepos
from workflows.job.coding_job import CodingJob
from workflows.repo.repo_entity import RepoEntity
from workflows.shipping.approval import Approval
from workflows.shipping.ship import Ship

WORKFLOWS: Sequence[type] = (
    CodingJob,
    RepoEntity,
    Desk,
    AddRepo,
    ListRepos,
    JobDiffer,
    Approval,
    Ship,
    Outbox,
    HostCheck,
    ResultDelivery,
    SessionKeep,
)


def shelf_activities_for(client: Client, settings: DeskSettings) -> list[Callable[..., Any]]:
    """The activities that touch this host's shelf: they run on its own queue."""
    shelf = ShelfActivities(settings)
    ship = ShipActivities(settings)
    trees = WorktreeActivities(settings, client)
    agent = AgentActivities(settings, client)
    setup = SetupActivities(settings, client, agent.sandbox.mode)
    return [
        shelf.add_repo,
        shelf.list_repos,
        shelf.clone_on_shelf,
        trees.prepare_worktree,
        trees.forget_session,
        trees.discard_worktree,
        trees.integrate,
        trees.release_worktree,
        trees.branch_so_far,
        trees.discard_reviewed,
        trees.job_diff,
        agent.run_agent,
        setup.set_up_worktree,
        setup.check_worktree,
        ship.change_report,
        ship.clone_head,
        ship.push,
        BranchPushActivities(settings).push_branch,
    ]


def activities_for(client: Client, settings: DeskSettings) -> list[Callable[..., Any]]:
    """Every activity of the desk, bound to this host's settings."""
    desk = DeskActivities(client)
    return [
        *shelf_activities_for(client, settings),
        desk.running_jobs,
        desk.host_policy,
        ShipRequestActivities(client, settings).request_ship,
        AdmissionActivities(client, settings).check_admission,
        HostActivities(settings).host_report,
        classify_call_activity,
        ResultActivities(settings).deliver_result,
    ]


class DeskWorkers(contextlib.AsyncExitStack):
    """This host's two workers, run together: the shared queue's and the host queue's.

    The shared queue runs the workflows and every activity (a workflow started before hosts
    existed names no host); the host queue runs only the shelf activities of this host.
    """

    def __init__(self, workers: Sequence[Worker]) -> None:
        super().__init__()
        self.workers = list(workers)

    async def __aenter__(self) -> DeskWorkers:
        await super().__aenter__()
        for worker in self.workers:
            await self.enter_async_context(worker)
        return self


def build_worker(
    client: Client,
    settings: DeskSettings,
    *,
    task_queue: str | None = None,
) -> DeskWorkers:
    """Workers polling the desk's task queue (or `task_queue`, for tests) and this host's."""
    set_diagnostic_chars(settings.diagnostic_chars)
    shared = task_queue or settings.task_queue
    # The history's ACTIVITY_TASK_STARTED names the worker: let it name the host too.
    identity = f"{os.getpid()}@{settings.host}"
    # The agent's heartbeat carries its latest lines: let them reach Temporal at that pace.
    throttle = settings.agent_progress_interval
    return DeskWorkers(
        [
            Worker(
                client,
                task_queue=shared,
                workflows=list(WORKFLOWS),
                workflow_runner=WORKFLOW_RUNNER,
                activities=activities_for(client, settings),
                sticky_queue_schedule_to_start_timeout=settings.sticky_timeout,
                graceful_shutdown_timeout=timedelta(seconds=5),
                identity=identity,
                max_heartbeat_throttle_interval=throttle,
                interceptors=[RefusalLog()],
            ),
            Worker(
                client,
                task_queue=host_task_queue(shared, settings.host),
                activities=shelf_activities_for(client, settings),
                graceful_shutdown_timeout=timedelta(seconds=5),
                identity=identity,
                max_heartbeat_throttle_interval=throttle,
                interceptors=[RefusalLog()],
            ),
        ]
    )
