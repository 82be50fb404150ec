"""The hosts of the desk for surfaces: where `repo add` clones, what `codedesk hosts` lists."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from pydantic import BaseModel, Field
from temporalio.client import Client

from desk.errors import HostError
from desk.hosts import check_host_name
from desk.payloads.jobs import DeskState
from workers.host_queues import polled_hosts

HOST_START_GRACE = timedelta(seconds=3)
"""How long `repo add` looks again for a known host's worker before it says none polls."""
HOST_LOOK_AGAIN = 0.1


class HostRow(BaseModel):
    """One line of `codedesk hosts`."""

    name: str
    polling: bool
    shelf: str = ""
    slots: int = 0
    seen_at: datetime | None = None
    repos: list[str] = Field(default_factory=list)
    running_jobs: list[int] = Field(default_factory=list)


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
        if not await _live(client, task_queue, [asked]):
            raise HostError(
                f"Host {asked!r} has no worker polling now: start `codedesk worker` there "
                "and try again. Nothing was cloned."
            )
        return asked
    if placed:
        return placed
    if not known:
        return ""
    live = await _live(client, task_queue, sorted(known))
    if len(live) == 1:
        return live[0]
    if not live:
        raise HostError(
            f"No host has a worker polling now (known: {', '.join(sorted(known))}): start "
            "`codedesk worker` on the host that should hold the clone. Nothing was cloned."
        )
    raise HostError(f"Several hosts have workers ({', '.join(live)}): choose one with --host NAME.")


async def _live(client: Client, task_queue: str, names: list[str]) -> list[str]:
    """Those of the hosts `names` whose worker polls; when none does, looked at again for
    `HOST_START_GRACE` before the answer is none: a worker that has just started tells the desk
    of its host before its first poll reaches the server."""
    deadline = asyncio.get_running_loop().time() + HOST_START_GRACE.total_seconds()
    while True:
        live = [name for name, up in (await polled_hosts(client, task_queue, names)).items() if up]
        if live or asyncio.get_running_loop().time() >= deadline:
            return live
        await asyncio.sleep(HOST_LOOK_AGAIN)


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
