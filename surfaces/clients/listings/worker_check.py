"""Whether a codedesk worker polls the desk's task queue: asked of Temporal, answered at once.

Without a worker an update or a query waits for its RPC timeout and a workflow waits forever,
so a command that needs one asks Temporal first and says so at once.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

from desk.errors import NoWorkerError

if TYPE_CHECKING:
    from temporalio.client import Client
    from temporalio.service import WorkflowService

POLLER_FRESH = timedelta(minutes=2)
"""A poller seen this recently is taken as alive: a live worker polls again within about 70 s,
and Temporal keeps listing a stopped one for a few minutes."""


async def live_pollers(client: Client, task_queue: str) -> list[str]:
    """The identities of the workers that polled `task_queue` for workflow tasks lately."""
    return await pollers_of(client.workflow_service, client.namespace, task_queue)


async def pollers_of(service: WorkflowService, namespace: str, task_queue: str) -> list[str]:
    """`live_pollers` asked of the service alone (what `codedesk jobs` connects to)."""
    described = await service.describe_task_queue(
        DescribeTaskQueueRequest(
            namespace=namespace,
            task_queue=TaskQueue(name=task_queue),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        )
    )
    since = datetime.now(UTC) - POLLER_FRESH
    return [
        poller.identity
        for poller in described.pollers
        if poller.last_access_time.ToDatetime(tzinfo=UTC) >= since
    ]


def no_worker(task_queue: str) -> str:
    return (
        f"No codedesk worker is polling task queue {task_queue!r}; start one with `codedesk up` "
        "or `codedesk worker` (with the same CODEDESK_TASK_QUEUE and namespace)."
    )


STARTING_WORKER_CHECKS = 3
"""Looks at the task queue, half a second apart, before saying no worker polls it: a worker that
is starting (a test's, or `codedesk up` a moment ago) has not sent its first poll yet."""


async def require_worker(client: Client, task_queue: str) -> None:
    """Refuse within a second or so, with what to do, when no worker polls `task_queue`."""
    await require_worker_at(client.workflow_service, client.namespace, task_queue)


async def require_worker_at(service: WorkflowService, namespace: str, task_queue: str) -> None:
    """`require_worker` asked of the service alone."""
    for check in range(STARTING_WORKER_CHECKS):
        if check:
            await asyncio.sleep(0.5)
        if await pollers_of(service, namespace, task_queue):
            return
    raise NoWorkerError(no_worker(task_queue))
