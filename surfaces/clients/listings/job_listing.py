"""A page of jobs from Temporal's visibility, read with the workflow service alone.

No workflow definitions, data converter or pydantic: the workflow type, search attributes,
memo keys and the desk's query are names from `desk.names`, a job's phase is the plain enum of
`desk.records.job_states`, and their payloads are JSON, so
`codedesk jobs` costs little more than starting Python and connecting. Every surface lists
jobs through here (the CLI, the Discord bot, `DeskClient.job_page`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from temporalio.api.common.v1 import Payload
from temporalio.api.common.v1 import WorkflowExecution as Execution
from temporalio.api.enums.v1 import WorkflowExecutionStatus
from temporalio.api.query.v1 import WorkflowQuery
from temporalio.api.workflow.v1 import WorkflowExecutionInfo
from temporalio.api.workflowservice.v1 import (
    CountWorkflowExecutionsRequest,
    ListWorkflowExecutionsRequest,
    QueryWorkflowRequest,
)

from desk.decisions.host_slots import queue_position
from desk.errors import ServerError
from desk.names import (
    ATTEMPT_OF_MEMO,
    ATTEMPTS_MEMO,
    CONTINUES_MEMO,
    COST_ATTRIBUTE,
    DESK_STATE_QUERY,
    DESK_WORKFLOW_ID,
    JOB_WORKFLOW_TYPE,
    OUTCOME_ATTRIBUTE,
    PHASE_ATTRIBUTE,
    REPO_ATTRIBUTE,
    REQUESTER_MEMO,
    TASK_MEMO,
    WAITING_HOST_ATTRIBUTE,
    job_number,
)
from desk.policy.utc_days import next_utc_day, utc_day
from desk.records.job_states import JobPhase
from surfaces.clients.listings.page import Page
from surfaces.clients.listings.worker_check import pollers_of

if TYPE_CHECKING:
    from temporalio.service import WorkflowService

JOBS_QUERY = f"WorkflowType = '{JOB_WORKFLOW_TYPE}'"

QUERY_TIMEOUT = timedelta(seconds=5)
"""How long the listing waits for a worker to tell the desk's queue before leaving it out."""

STATUS_PREFIX = "WORKFLOW_EXECUTION_STATUS_"


@dataclass(frozen=True)
class JobRow:
    """One line of `codedesk jobs`."""

    number: int
    repo: str
    phase: str
    outcome: str
    status: str
    requester: str
    task: str
    started: datetime | None
    position: int | None = None
    """Place in the desk's queue while the job waits for a slot."""
    waiting_for_host: str = ""
    """The host whose worker the job waits for (empty while it has one)."""
    cost: float | None = None
    """What the finished job cost in US dollars; None while it runs, or when not known."""
    waiting_for_day: datetime | None = None
    """When the next UTC day begins, while the desk's daily spend limit holds its queue."""
    continues: int = 0
    """The finished job this one continues (0: none)."""
    attempt_of: int = 0
    """This job is an attempt of job `attempt_of`: listed in that job's row, not its own."""
    attempts: tuple[int, ...] = ()
    """A job of several attempts: their job numbers."""
    attempt_phases: tuple[str, ...] = ()
    """Their phases as listed with it, in order (empty where the page did not hold one)."""

    def as_json(self) -> dict[str, Any]:
        """The row as `codedesk jobs --json` prints it (times in UTC, ISO 8601, `Z`)."""
        return {
            "number": self.number,
            "repo": self.repo,
            "phase": self.phase,
            "outcome": self.outcome,
            "status": self.status,
            "requester": self.requester,
            "task": self.task,
            "started": utc_text(self.started),
            "position": self.position,
            "waiting_for_host": self.waiting_for_host,
            "cost_usd": self.cost,
            "waiting_for_day": utc_text(self.waiting_for_day),
            "continues": self.continues or None,
            "attempts": (
                [
                    {"number": number, "phase": phase or None}
                    for number, phase in zip(self.attempts, self.attempt_phases, strict=False)
                ]
                if self.attempts
                else None
            ),
        }


@dataclass(frozen=True)
class JobListing:
    """A page of jobs, and whether a worker polls (without one, positions are not known)."""

    page: Page[JobRow]
    worker_polling: bool


@dataclass(frozen=True)
class DayView:
    """Today's total (UTC) of the desk's finished jobs against its daily spend limit."""

    limit: Decimal
    spent: Decimal
    resets_at: datetime
    action: str = "queue"
    """What new tasks get once the limit is reached: queue or refuse."""

    @property
    def reached(self) -> bool:
        """Whether the desk's queue waits for the next UTC day, and new tasks with it."""
        return self.spent >= self.limit

    def as_json(self) -> dict[str, Any]:
        return {
            "limit_usd": float(self.limit),
            "spent_today_usd": float(self.spent),
            "reached": self.reached,
            "action": self.action,
            "resets_at": utc_text(self.resets_at),
        }


@dataclass(frozen=True)
class QueueView:
    """The part of the desk's state a queue position is read from."""

    queue: list[int]
    job_hosts: dict[int, str]
    day: DayView | None = None
    """None when the desk has no daily spend limit."""


async def job_page(
    service: WorkflowService, namespace: str, task_queue: str, limit: int
) -> JobListing:
    """The `limit` newest jobs, newest first, how many there are in all, and whether a worker
    polls `task_queue`.

    Visibility lists running jobs first, then the most recently closed, a page at a time on
    the server; the count, the page and the task queue are asked for at once, and the desk's
    queue only when the page shows a queued job.
    """
    counted, infos, pollers = await asyncio.gather(
        service.count_workflow_executions(
            CountWorkflowExecutionsRequest(namespace=namespace, query=JOBS_QUERY)
        ),
        listed(service, namespace, JOBS_QUERY, limit, counts=_own_row),
        pollers_of(service, namespace, task_queue),
    )
    rows = with_attempts([job_row(info) for info in infos])
    if pollers and any(row.phase == JobPhase.QUEUED for row in rows):
        state = await desk_state_json(service, namespace)
        if state is not None:
            view = queue_view(state)
            rows = [_placed(row, view) for row in rows]
    rows.sort(key=lambda row: row.number, reverse=True)
    # The count is of executions: the attempts this page read are not jobs of their own, and
    # those of older jobs beyond it are still in it (the total is at most that much too high).
    attempts = len(infos) - len(rows)
    page = Page(items=rows, total=max(counted.count - attempts, len(rows)))
    return JobListing(page=page, worker_polling=bool(pollers))


async def listed(
    service: WorkflowService,
    namespace: str,
    query: str,
    limit: int,
    counts: Callable[[WorkflowExecutionInfo], bool] = lambda info: True,
) -> list[WorkflowExecutionInfo]:
    """Executions, in pages the server may cap, until `limit` of them `counts` (the others, an
    attempt listed in its job's row, are read beside them)."""
    found: list[WorkflowExecutionInfo] = []
    token = b""
    counted = 0
    while counted < limit:
        answer = await service.list_workflow_executions(
            ListWorkflowExecutionsRequest(
                namespace=namespace,
                query=query,
                page_size=limit - counted,
                next_page_token=token,
            )
        )
        for info in answer.executions:
            own = counts(info)
            if own and counted == limit:
                break
            found.append(info)
            counted += own
        token = answer.next_page_token
        if not token:
            break
    return found


def _own_row(info: WorkflowExecutionInfo) -> bool:
    """Whether the execution is a job of its own: an attempt's is listed in its job's row."""
    return ATTEMPT_OF_MEMO not in info.memo.fields


def job_row(info: WorkflowExecutionInfo) -> JobRow:
    """One job as visibility lists it: its search attributes and memo, no query asked."""
    attributes = info.search_attributes.indexed_fields
    memo = info.memo.fields
    number = job_number(info.execution.workflow_id)

    def attribute(name: str) -> str:
        return _text(attributes[name], number) if name in attributes else ""

    status = WorkflowExecutionStatus.Name(info.status).removeprefix(STATUS_PREFIX).lower()
    return JobRow(
        number=number,
        repo=attribute(REPO_ATTRIBUTE.name),
        phase=attribute(PHASE_ATTRIBUTE.name),
        outcome=attribute(OUTCOME_ATTRIBUTE.name),
        status="running" if status == "unspecified" else status,
        requester=_text(memo[REQUESTER_MEMO], number) if REQUESTER_MEMO in memo else "",
        task=_text(memo[TASK_MEMO], number) if TASK_MEMO in memo else "",
        continues=int(_text(memo[CONTINUES_MEMO], number)) if CONTINUES_MEMO in memo else 0,
        attempt_of=int(_text(memo[ATTEMPT_OF_MEMO], number)) if ATTEMPT_OF_MEMO in memo else 0,
        attempts=_numbers(memo[ATTEMPTS_MEMO], number) if ATTEMPTS_MEMO in memo else (),
        started=info.start_time.ToDatetime(tzinfo=UTC) if info.HasField("start_time") else None,
        waiting_for_host=attribute(WAITING_HOST_ATTRIBUTE.name),
        cost=_amount(attributes[COST_ATTRIBUTE.name], number)
        if COST_ATTRIBUTE.name in attributes
        else None,
    )


def with_attempts(rows: list[JobRow]) -> list[JobRow]:
    """The rows without attempts' own: each attempt's phase goes into its job's row."""
    phases = {row.number: row.phase for row in rows if row.attempt_of}
    return [
        replace(row, attempt_phases=tuple(phases.get(number, "") for number in row.attempts))
        for row in rows
        if not row.attempt_of
    ]


def _placed(row: JobRow, view: QueueView) -> JobRow:
    if row.number not in view.queue:
        return row
    held = view.day.resets_at if view.day is not None and view.day.reached else None
    return replace(row, position=queue_position(view, row.number), waiting_for_day=held)


async def desk_state_json(service: WorkflowService, namespace: str) -> dict[str, Any] | None:
    """The desk's state as JSON, asked of its worker; None when it does not answer in time."""
    from temporalio.service import RPCError

    request = QueryWorkflowRequest(
        namespace=namespace,
        execution=Execution(workflow_id=DESK_WORKFLOW_ID),
        query=WorkflowQuery(query_type=DESK_STATE_QUERY),
    )
    try:
        answer = await service.query_workflow(request, timeout=QUERY_TIMEOUT)
    except RPCError:
        return None
    if answer.HasField("query_rejected") or not answer.query_result.payloads:
        return None
    state = payload_json(answer.query_result.payloads[0], "the desk's state")
    if not isinstance(state, dict):
        raise ServerError(f"The desk's state is not a JSON object: {str(state)[:100]}")
    return state


def queue_view(state: dict[str, Any]) -> QueueView:
    """The desk's queue and day from its state's JSON."""
    hosts = state.get("job_hosts") or {}
    return QueueView(
        queue=[int(number) for number in state.get("queue") or []],
        job_hosts={int(number): str(host) for number, host in hosts.items()},
        day=day_view(state, datetime.now(UTC)),
    )


def day_view(state: dict[str, Any], now: datetime) -> DayView | None:
    """How the UTC day of `now` stands against the desk's daily limit (None: it has none)."""
    policy = state.get("policy") or {}
    limit = _decimal(policy.get("daily_spend_limit"))
    if limit is None:
        return None
    totals = (state.get("day_spend") or {}).get("totals") or {}
    spent = _decimal(totals.get(utc_day(now).isoformat())) or Decimal(0)
    action = str(policy.get("daily_limit_action") or "queue")
    return DayView(limit=limit, spent=spent, resets_at=next_utc_day(now), action=action)


def _decimal(value: object) -> Decimal | None:
    """An amount as pydantic writes a Decimal to JSON (a string; a number from elsewhere)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    try:
        return Decimal(str(value))
    except ArithmeticError:
        return None


def utc_text(at: datetime | None) -> str | None:
    """An instant as `--json` prints it: UTC, ISO 8601, `Z` (None stays None)."""
    if at is None:
        return None
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _text(payload: Payload, number: int) -> str:
    value = payload_json(payload, f"job {number}'s listing")
    if isinstance(value, list):  # servers before 1.20 give a keyword as a list of one
        value = value[0] if value else ""
    return "" if value is None else str(value)


def _numbers(payload: Payload, number: int) -> tuple[int, ...]:
    value = payload_json(payload, f"job {number}'s listing")
    return tuple(int(item) for item in value) if isinstance(value, list) else ()


def _amount(payload: Payload, number: int) -> float | None:
    value = payload_json(payload, f"job {number}'s listing")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def payload_json(payload: Payload, what: str) -> Any:
    """A payload's value; an error naming `what` if it is not plain JSON (a codec's output)."""
    return json.loads(json_data(payload, what))


def json_data(payload: Payload, what: str) -> bytes:
    """A payload's JSON text; an error naming `what` if it is not plain JSON."""
    encoding = payload.metadata.get("encoding", b"")
    if encoding != b"json/plain":
        raise ServerError(
            f"{what.capitalize()} holds a payload encoded as {encoding.decode(errors='replace')!r}"
            ", not JSON: codedesk lists only from a server whose payloads it wrote itself."
        )
    return payload.data
