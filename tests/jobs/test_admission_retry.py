"""A submission asked again is admitted once: by the desk across continue-as-new, and by the
client, which asks again with the same request id when a try gets no answer."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.errors import DeskSilentError
from desk.names import DESK_WORKFLOW_ID
from desk.payloads.jobs import Admission, AdmitInput, JobInput, JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import settings_env
from tests.helpers.jobs.desk_queue import REPO, desk_state, limited, marks, wait_all
from tests.helpers.processes import StartWorker
from tests.helpers.waiting import eventually, until
from workers.desk_handle import desk_start
from workflows.desk.desk_entity import Desk


async def admit(desk: DeskClient, request: AdmitInput, update_id: str) -> Admission:
    """One admit Update, as a client sends it, under its own Update id."""
    return await desk.client.execute_update_with_start_workflow(
        Desk.admit, request, id=update_id, start_workflow_operation=desk_start(desk.settings)
    )


@pytest.fixture
async def clone(desk: DeskClient, origin: Path) -> Path:
    return Path((await desk.add_repo(REPO, str(origin))).path)


async def job_count(client: Client) -> int:
    return (await client.count_workflows("WorkflowType = 'CodingJob'")).count


async def test_a_repeated_request_gets_its_first_number_also_after_continue_as_new(
    desk: DeskClient, settings: DeskSettings, client: Client, clone: Path, gates: Path
) -> None:
    # One slot and no queue: a repeat that were a new submission would be refused as full.
    desk = await limited(desk, settings, max_workers=1, max_queued=0, desk_history_limit=40)
    log, go = settings.home, gates / "go"  # the agents' marks are in its jobs' logs
    request = AdmitInput(
        job=JobInput(number=0, repo=REPO, task="once", agent_command=agent("mark", f"wait:{go}")),
        request_id=str(uuid.uuid4()),
    )
    first = await admit(desk, request, request.request_id)
    assert (first.number, first.position) == (1, 0)
    # Another Update id, so Temporal's own deduplication does not answer: the desk does.
    again = await admit(desk, request, str(uuid.uuid4()))
    assert (again.number, again.position, again.running) == (1, 0, 1)

    handle = client.get_workflow_handle(DESK_WORKFLOW_ID)
    run = (await handle.describe()).run_id
    go.touch()
    await wait_all(desk, [1])
    # Quick jobs, one after another, until the desk has continued as new.
    for _ in range(30):
        if (await handle.describe()).run_id != run:
            break
        # The desk frees the one slot when it hears the job end, a signal after its report.
        await eventually(lambda: desk_state(desk), lambda state: not state.running, "a free slot")
        made = await desk.submit_job(REPO, "quick", agent_command=agent("mark"))
        await wait_all(desk, [made.number])
    assert (await handle.describe()).run_id != run, "the desk never continued as new"
    last = (await desk_state(desk)).last_number

    after = await admit(desk, request, str(uuid.uuid4()))
    assert after.number == 1
    state = await desk_state(desk)
    assert state.last_number == last, "the repeat was numbered again"
    assert state.running == [] and state.queue == []
    assert await job_count(client) == last
    assert sorted(marks(log)) == list(range(1, last + 1)), "a job ran twice or never"


class Tries(logging.Handler):
    """The client's log lines that say a try got no answer."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "did not answer" in record.getMessage():
            self.lines.append(record.getMessage())


@pytest.fixture
def tries() -> Iterator[Tries]:
    handler = Tries()
    logger = logging.getLogger("surfaces.clients.desk_client")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(level)


@pytest.mark.slow
async def test_a_submission_the_desk_does_not_answer_is_asked_again_and_admitted_once(
    settings: DeskSettings,
    client: Client,
    origin: Path,
    start_worker: StartWorker,
    tries: Tries,
) -> None:
    worker = start_worker(settings_env(settings))
    desk = DeskClient(client, settings.model_copy(update={"admit_wait": timedelta(minutes=5)}))
    desk.admit_try = timedelta(seconds=1)
    await desk.add_repo(REPO, str(origin))
    log = settings.home  # the agents' marks are in its jobs' logs
    assert (await desk.submit_job(REPO, "warm", agent_command=agent("mark"))).number == 1

    os.kill(worker.pid, signal.SIGSTOP)  # the desk's worker takes no task while stopped
    try:
        submission = asyncio.create_task(
            desk.submit_job(REPO, "asked again", agent_command=agent("mark"))
        )
        await until(lambda: tries.lines, "a try of the submission to get no answer")
    finally:
        os.kill(worker.pid, signal.SIGCONT)
    admission = await submission
    assert admission.number == 2
    reports = await wait_all(desk, [1, 2])
    assert [r.outcome for r in reports] == [JobOutcome.NOTHING] * 2
    assert sorted(marks(log)) == [1, 2], "a job ran twice or never"
    assert await job_count(client) == 2
    assert (await desk_state(desk)).last_number == 2

    # Never answered within admit_wait: one clear error, with what to check.
    impatient = DeskClient(client, settings.model_copy(update={"admit_wait": timedelta(seconds=3)}))
    impatient.admit_try = timedelta(seconds=1)
    os.kill(worker.pid, signal.SIGSTOP)
    try:
        with pytest.raises(DeskSilentError, match=r"gave no answer .* `codedesk jobs`"):
            await impatient.submit_job(REPO, "never answered", agent_command=agent("say:hi"))
    finally:
        os.kill(worker.pid, signal.SIGCONT)
    assert len(tries.lines) >= 3
