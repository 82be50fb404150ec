"""Which hosts have a worker polling their queue now, and one shelf per host name."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client, WorkflowQueryFailedError
from temporalio.service import RPCError, RPCStatusCode

from desk.errors import HostError
from desk.names import DESK_WORKFLOW_ID, host_task_queue
from desk.settings import DeskSettings
from workflows.desk import Desk

POLL_FRESHNESS = timedelta(seconds=90)
"""A poller seen this recently still polls: a long poll lasts about a minute, and the server
lists a stopped worker's poller for minutes after it is gone."""

QUERY_TIMEOUT = timedelta(seconds=5)


async def host_polled(client: Client, task_queue: str, host: str) -> bool:
    """Whether a worker of `host` polls its queue now (Temporal's pollers of that queue)."""
    answer = await client.workflow_service.describe_task_queue(
        DescribeTaskQueueRequest(
            namespace=client.namespace,
            task_queue=TaskQueue(name=host_task_queue(task_queue, host)),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
        )
    )
    fresh = datetime.now(UTC) - POLL_FRESHNESS
    return any(poller.last_access_time.ToDatetime(UTC) >= fresh for poller in answer.pollers)


async def polled_hosts(client: Client, task_queue: str, names: list[str]) -> dict[str, bool]:
    """Each host name and whether a worker polls its queue now."""
    answers = await asyncio.gather(*(host_polled(client, task_queue, name) for name in names))
    return dict(zip(names, answers, strict=True))


async def check_host_claim(client: Client, settings: DeskSettings) -> None:
    """Refuse to join a live host under its name while keeping the clones on another shelf.

    Called once this worker polls (so the desk answers), when another worker of the same host
    name polled a moment ago: workers of one host share its shelf, and a worker with another
    shelf would take that host's jobs and find none of its clones. A host with no other worker
    may move its shelf; the desk then records the new one.
    """
    handle = client.get_workflow_handle_for(Desk.run, DESK_WORKFLOW_ID)
    try:
        state = await handle.query(Desk.current, rpc_timeout=QUERY_TIMEOUT)
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return  # no desk yet, so no host is recorded
        raise HostError(
            f"Host {settings.host} has another worker, and the desk did not say which shelf it "
            f"uses ({error}); not starting a worker that might use another shelf."
        ) from None
    except WorkflowQueryFailedError as error:
        raise HostError(f"The desk could not say which shelf host {settings.host} uses ({error}).")
    record = state.hosts.get(settings.host)
    shelf = str(settings.shelf_dir)
    if record is not None and record.shelf and record.shelf != shelf:
        raise HostError(
            f"Host {settings.host} already has a worker with its shelf at {record.shelf}, not "
            f"{shelf}: give this worker another CODEDESK_HOST, or the same CODEDESK_SHELF."
        )
