"""The embedded server puts every new task in a task queue's root partition, where polls meet."""

from __future__ import annotations

from pathlib import Path

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client

from workers.devserver import DevServer, free_port

QUEUE = "nobody-polls"


async def backlog(client: Client, partition: str) -> int:
    described = await client.workflow_service.describe_task_queue(
        DescribeTaskQueueRequest(
            namespace=client.namespace,
            task_queue=TaskQueue(name=partition),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
            include_task_queue_status=True,
        )
    )
    return described.task_queue_status.backlog_count_hint


async def test_new_workflow_tasks_all_wait_in_the_root_partition(tmp_path: Path) -> None:
    server = DevServer(tmp_path, free_port(), free_port(), headless=True)
    await server.start()
    try:
        client = await Client.connect(server.address)
        for number in range(8):  # with four partitions, all eight in one: 1 in 16384
            await client.start_workflow("Nothing", id=f"waiting-{number}", task_queue=QUEUE)
        children = [await backlog(client, f"/_sys/{QUEUE}/{n}") for n in (1, 2, 3)]
        assert children == [0, 0, 0], "tasks went to partitions other than the root"
        assert await backlog(client, QUEUE) == 8
    finally:
        server.stop()
