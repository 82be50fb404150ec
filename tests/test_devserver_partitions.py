"""The embedded server's tuning: new tasks in the root partition, task queues read without delay."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client

from workers.devserver import DB_FILE, TASK_READER_RATE, TASK_READER_RATES, DevServer, free_port

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


def test_the_embedded_server_reads_new_tasks_without_the_default_rate_limit(tmp_path: Path) -> None:
    """At the default 20 reads a second each workflow task of a job waited 30-37 ms to start."""
    command = DevServer(tmp_path, free_port(), free_port(), headless=True).command()
    values = [command[i + 1] for i, arg in enumerate(command) if arg == "--dynamic-config-value"]
    for key in TASK_READER_RATES:
        assert f"{key}={TASK_READER_RATE}" in values


async def test_the_database_keeps_a_write_ahead_log_and_loses_no_write_to_a_kill(
    tmp_path: Path,
) -> None:
    """WAL mode: a commit appends to one log file; a SIGKILLed server's log is replayed."""
    server = DevServer(tmp_path, free_port(), free_port(), headless=True)
    await server.start()
    try:
        client = await Client.connect(server.address)
        for number in range(3):
            await client.start_workflow("Nothing", id=f"kept-{number}", task_queue=QUEUE)
        database = tmp_path / DB_FILE
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as reader:
            assert reader.execute("pragma journal_mode").fetchone() == ("wal",)
        assert database.with_name(f"{DB_FILE}-wal").is_file()
        assert server.process is not None
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
    finally:
        server.stop()
    again = DevServer(tmp_path, free_port(), free_port(), headless=True)
    await again.start()
    try:
        client = await Client.connect(again.address)
        for number in range(3):
            described = await client.get_workflow_handle(f"kept-{number}").describe()
            assert described.workflow_type == "Nothing"
    finally:
        again.stop()
