"""Which hosts have a worker polling their queue now (Temporal's pollers of each host queue)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client

from desk.names import host_task_queue

POLL_FRESHNESS = timedelta(seconds=90)
"""A poller seen this recently still polls: a long poll lasts about a minute, and the server
lists a stopped worker's poller for minutes after it is gone."""


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
