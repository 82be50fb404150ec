"""The hosts of the desk as Temporal sees them: which host queues have a worker polling now."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, Field
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client

from desk.errors import HostError
from desk.hosts import check_host_name
from desk.models import DeskState
from desk.names import host_task_queue

POLL_FRESHNESS = timedelta(seconds=90)
"""A poller seen this recently still polls: a long poll lasts about a minute, and the server
lists a stopped worker's poller for minutes after it is gone."""


class HostRow(BaseModel):
    """One line of `codedesk hosts`."""

    name: str
    polling: bool
    shelf: str = ""
    slots: int = 0
    seen_at: datetime | None = None
    repos: list[str] = Field(default_factory=list)
    running_jobs: list[int] = Field(default_factory=list)


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


async def host_for_new_repo(
    client: Client, task_queue: str, desk: DeskState | None, repo: str, asked: str
) -> str:
    """The host `repo add` clones on: the one asked for, else the only host with a worker.

    Empty when the desk knows no host at all (workers older than hosts): the clone then goes
    to whichever worker of the shared queue takes it, as before.
    """
    known = dict(desk.hosts) if desk is not None else {}
    placed = desk.repo_hosts.get(repo, "") if desk is not None else ""
    if asked:
        check_host_name(asked)
        if asked not in known:
            names = ", ".join(sorted(known)) or "none yet"
            raise HostError(
                f"Host {asked!r} is unknown (known hosts: {names}): start `codedesk worker` "
                f"there with CODEDESK_HOST={asked}, or name a known host."
            )
        if placed and placed != asked:
            raise HostError(
                f"{repo} is already on host {placed}: a repository lives on one host. "
                f"Use it there, or remove its clone from {placed} first."
            )
        if not await host_polled(client, task_queue, asked):
            raise HostError(
                f"Host {asked!r} has no worker polling now: start `codedesk worker` there "
                "and try again. Nothing was cloned."
            )
        return asked
    if placed:
        return placed
    if not known:
        return ""
    live = [
        name for name, up in (await polled_hosts(client, task_queue, sorted(known))).items() if up
    ]
    if len(live) == 1:
        return live[0]
    if not live:
        raise HostError(
            f"No host has a worker polling now (known: {', '.join(sorted(known))}): start "
            "`codedesk worker` on the host that should hold the clone. Nothing was cloned."
        )
    raise HostError(f"Several hosts have workers ({', '.join(live)}): choose one with --host NAME.")


async def host_rows(
    client: Client, task_queue: str, desk: DeskState, jobs: dict[int, str]
) -> list[HostRow]:
    """Every host the desk knows, with its repos, its running jobs and whether it polls now.

    `jobs` maps running job numbers to their repositories.
    """
    polling = await polled_hosts(client, task_queue, sorted(desk.hosts))
    rows = []
    for name, record in sorted(desk.hosts.items()):
        repos = sorted(repo for repo, host in desk.repo_hosts.items() if host == name)
        rows.append(
            HostRow(
                name=name,
                polling=polling[name],
                shelf=record.shelf,
                slots=record.slots,
                seen_at=record.seen_at,
                repos=repos,
                running_jobs=sorted(n for n, repo in jobs.items() if repo in repos),
            )
        )
    return rows
