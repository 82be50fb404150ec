"""Job slots per host: how the desk counts running jobs, admits in FIFO order per host."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from desk.payloads.jobs import DeskState


class HostedQueue(Protocol):
    """What a queue position is read from: the desk's state, or a listing's view of it."""

    @property
    def queue(self) -> list[int]: ...

    @property
    def job_hosts(self) -> dict[int, str]: ...


def repo_host(state: DeskState, repo: str) -> str:
    """The host of `repo`'s clone: where it was added, else the desk's only host, else ""."""
    if repo in state.repo_hosts:
        return state.repo_hosts[repo]
    return next(iter(state.hosts)) if len(state.hosts) == 1 else ""


def job_host(state: HostedQueue, number: int) -> str:
    """The host job `number` runs on ("" for a job of a desk that knows no hosts)."""
    return state.job_hosts.get(number, "")


def slots_of(state: DeskState, host: str) -> int:
    """The host's job slots, as its workers said; the desk-wide limit for an unknown host."""
    record = state.hosts.get(host)
    return record.slots if record is not None else state.limits.max_workers


def running_on(state: DeskState, host: str) -> int:
    return sum(1 for number in state.running if job_host(state, number) == host)


def queued_on(state: HostedQueue, host: str) -> list[int]:
    """The host's waiting jobs, first come first."""
    return [number for number in state.queue if job_host(state, number) == host]


def must_wait(state: DeskState, host: str) -> bool:
    """Whether a new job of `host` waits: no free slot there, or others wait there already."""
    return running_on(state, host) >= slots_of(state, host) or bool(queued_on(state, host))


def next_admissible(state: DeskState, starting: Collection[int]) -> int | None:
    """The first waiting job whose host has a free slot, heads of each host's queue only."""
    heads: set[str] = set()
    for number in state.queue:
        host = job_host(state, number)
        if host in heads:
            continue
        heads.add(host)
        if number not in starting and running_on(state, host) < slots_of(state, host):
            return number
    return None


def queue_position(state: HostedQueue, number: int) -> int:
    """1 for the head of the job's host's queue; 0 when the job does not wait."""
    waiting = queued_on(state, job_host(state, number))
    return waiting.index(number) + 1 if number in waiting else 0
