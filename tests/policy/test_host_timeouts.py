"""The host's crash-recovery waits (issue 49): a job's git steps take the host's
CODEDESK_GIT_HEARTBEAT_TIMEOUT (carried in the job's input, the workflows cannot read the
host's settings) and the worker's sticky queue the host's CODEDESK_STICKY_TIMEOUT; both are how
soon a crashed worker's work goes on."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.names import job_workflow_id, repo_workflow_id
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.desks import host_policy
from tests.helpers.waiting import awaited
from workers.worker import build_worker

REPO = "acme/api"
SHORT = timedelta(seconds=3)


async def heartbeat_timeouts(client: Client, workflow_id: str) -> dict[str, set[timedelta]]:
    """Each activity the workflow scheduled, by its type, with the heartbeat timeouts it had."""
    found: dict[str, set[timedelta]] = {}
    async for event in client.get_workflow_handle(workflow_id).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled = event.activity_task_scheduled_event_attributes
            timeout = scheduled.heartbeat_timeout.ToTimedelta()
            found.setdefault(scheduled.activity_type.name, set()).add(timeout)
    return found


async def test_a_jobs_git_steps_take_the_hosts_git_heartbeat_timeout(
    desk: DeskClient, clone: Path
) -> None:
    await host_policy(desk, git_heartbeat_timeout=SHORT)
    number = await desk.start_job(
        REPO, "add a file", agent_command=agent("write:a.txt=a", "commit:a")
    )
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report

    job = await heartbeat_timeouts(desk.client, job_workflow_id(number))
    repo = await heartbeat_timeouts(desk.client, repo_workflow_id(REPO))
    prepare = [name for name in job if "prepare_worktree" in name]
    integrate = [name for name in repo if name.endswith("integrate")]
    assert prepare and integrate, (job, repo)
    assert [job[name] for name in prepare] == [{SHORT}], job
    assert [repo[name] for name in integrate] == [{SHORT}], repo


async def test_the_workers_sticky_queue_waits_the_hosts_sticky_timeout(
    client: Client, settings: DeskSettings
) -> None:
    host = settings.model_copy(update={"sticky_timeout": SHORT})
    workflows = build_worker(client, host).workers[0]
    assert workflows.config()["sticky_queue_schedule_to_start_timeout"] == SHORT
