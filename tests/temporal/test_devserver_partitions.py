"""The embedded server's tuning: new tasks in the root partition, task queues read without delay,
search attributes kept in the server's cache."""

from __future__ import annotations

import signal
import sqlite3
import urllib.request
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio import activity, workflow
from temporalio.api.enums.v1 import EventType, TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.worker import Worker

from desk.config.basics.defaults import SERVER_SYNC_MODES
from desk.names import PHASE_ATTRIBUTE, REPO_ATTRIBUTE, WAITING_HOST_ATTRIBUTE
from tests.helpers.waiting import eventually
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
        partitions = [QUEUE, *(f"/_sys/{QUEUE}/{n}" for n in (1, 2, 3))]

        async def backlogs() -> list[int]:
            return [await backlog(client, partition) for partition in partitions]

        # A backlog count is a hint the server updates after the task is written: seen as 6
        # of 8 at once on a loaded machine. Wait until all eight are counted, then see where.
        counted = await eventually(backlogs, lambda counts: sum(counts) >= 8, "8 tasks counted")
        assert counted == [8, 0, 0, 0], "tasks went to partitions other than the root"
    finally:
        server.stop()


def test_the_embedded_server_reads_new_tasks_without_the_default_rate_limit(tmp_path: Path) -> None:
    """At the default 20 reads a second each workflow task of a job waited 30-37 ms to start."""
    command = DevServer(tmp_path, free_port(), free_port(), headless=True).command()
    values = [command[i + 1] for i, arg in enumerate(command) if arg == "--dynamic-config-value"]
    for key in TASK_READER_RATES:
        assert f"{key}={TASK_READER_RATE}" in values


@pytest.mark.parametrize("sync", SERVER_SYNC_MODES)
async def test_the_database_keeps_a_write_ahead_log_and_loses_no_write_to_a_kill(
    tmp_path: Path, sync: str
) -> None:
    """WAL mode: a commit appends to one log file; a SIGKILLed server's log is replayed, whether
    each commit is synced to disk (`full`) or left to the system (`normal`, the default)."""
    server = DevServer(tmp_path, free_port(), free_port(), headless=True, sync=sync)
    command = server.command()
    pragmas = [command[i + 1] for i, arg in enumerate(command) if arg == "--sqlite-pragma"]
    assert pragmas == ["journal_mode=wal", f"synchronous={sync.upper()}"]
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


@activity.defn(name="step")
async def step() -> None:
    """Nothing: its end is a workflow task of its workflow."""


@workflow.defn(name="Phases", sandboxed=False)
class Phases:
    """Four workflow tasks, three of them upserting a search attribute as a job's do."""

    @workflow.run
    async def run(self) -> None:
        for phase in ("one", "two", "three"):
            workflow.upsert_search_attributes([PHASE_ATTRIBUTE.value_set(phase)])
            await workflow.execute_activity(step, start_to_close_timeout=timedelta(seconds=30))


async def phases(client: Client, ident: str, queue: str) -> None:
    """Run `Phases` as a job runs: started with its repository's search attribute."""
    attributes = TypedSearchAttributes([SearchAttributePair(REPO_ATTRIBUTE, "acme/api")])
    await client.execute_workflow(
        Phases.run, id=ident, task_queue=queue, search_attributes=attributes
    )


class MeteredServer(DevServer):
    """The embedded server with its Prometheus endpoint on a known port."""

    def __init__(self, home: Path) -> None:
        super().__init__(home, free_port(), free_port(), headless=True)
        self.metrics_port = free_port()

    def command(self) -> list[str]:
        return [*super().command(), "--metrics-port", str(self.metrics_port)]

    def search_attribute_reads(self) -> float:
        """How often the server has read its search attributes from the database so far."""
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as answer:
            text = answer.read().decode()
        return sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("persistence_requests{")
            and 'operation="GetCurrentClusterMetadata"' in line
        )


async def test_workflow_tasks_read_the_search_attributes_from_the_servers_cache(
    tmp_path: Path,
) -> None:
    """Read afresh (the dev server's default), they cost two database reads a workflow task."""
    server = MeteredServer(tmp_path)
    await server.start()
    try:
        client = await Client.connect(server.address)
        queue = f"phases-{uuid.uuid4().hex[:8]}"
        async with Worker(client, task_queue=queue, workflows=[Phases], activities=[step]):
            await phases(client, "warm", queue)
            before = server.search_attribute_reads()
            for number in range(5):
                await phases(client, f"phases-{number}", queue)
            reads = server.search_attribute_reads() - before
        # Fewer than one a workflow task: the cache's own refresh (every ten seconds or so, in
        # each of the server's services) may fall inside the test, a read in every task may not.
        assert reads < 20, f"{reads:.0f} reads of the search attributes in 20 workflow tasks"
    finally:
        server.stop()


@workflow.defn(name="WaitsForAHost", sandboxed=False)
class WaitsForAHost:
    """Sets the search attribute codedesk added last, as a job waiting for a host does."""

    @workflow.run
    async def run(self) -> None:
        workflow.upsert_search_attributes([WAITING_HOST_ATTRIBUTE.value_set("laptop")])


class OlderServer(DevServer):
    """The embedded server as a codedesk from before `CodedeskWaitingHost` started it."""

    def command(self) -> list[str]:
        flag = f"{WAITING_HOST_ATTRIBUTE.name}=Keyword"
        command = super().command()
        at = command.index(flag)
        return command[: at - 1] + command[at + 1 :]


async def test_a_database_an_older_codedesk_made_gets_the_new_search_attribute_at_once(
    tmp_path: Path,
) -> None:
    """The server caches its search attributes: one added while it runs would fail every
    workflow task that sets it for about ten seconds, so the server starts again after."""
    older = OlderServer(tmp_path, free_port(), free_port(), headless=True)
    await older.start()
    older.stop()
    server = DevServer(tmp_path, free_port(), free_port(), headless=True)
    await server.start()
    try:
        await server.register_search_attributes("default")
        client = await Client.connect(server.address)
        queue = f"waits-{uuid.uuid4().hex[:8]}"
        async with Worker(client, task_queue=queue, workflows=[WaitsForAHost]):
            handle = await client.start_workflow(WaitsForAHost.run, id="waits", task_queue=queue)
            await handle.result()
        kinds = [event.event_type async for event in handle.fetch_history_events()]
        assert EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in kinds
    finally:
        server.stop()
