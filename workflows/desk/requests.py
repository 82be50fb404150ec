"""Submissions asked again: the `Desk` gives a repeated request id its first job number back.

Each admitted request id and its number live in the desk's state. The client sends the same
request id (also its Update id) on every try. Temporal deduplicates an Update id only within one
run; the desk's state, carried across continue-as-new, covers a try that reaches the next run:
it gets the first number and nothing starts again.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.decisions.host_slots import queue_position, queued_on, repo_host, running_on
    from desk.payloads.jobs import Admission, AdmitInput, DeskState

from workflows import patches

ADMISSIONS_KEPT = 2_000
"""Request ids the desk remembers (the newest): a client asks again within a few minutes, far
fewer admissions than this, and the state carried across continue-as-new stays small."""


def admission_of(state: DeskState, number: int, host: str) -> Admission:
    """Job `number`'s admission as the desk's state stands now: its place and its host's load."""
    return Admission(
        number=number,
        position=queue_position(state, number),
        running=running_on(state, host),
        queued=len(queued_on(state, host)),
        host=host,
    )


def admitted_before(state: DeskState, request: AdmitInput) -> bool:
    """Whether this submission already has a number (never true for one without an id)."""
    return bool(request.request_id) and request.request_id in state.admitted


def repeat_admission(state: DeskState, request: AdmitInput) -> Admission | None:
    """The admission of a submission seen before, as it stands now; None for a new one."""
    if not request.request_id or not workflow.patched(patches.REMEMBERED_ADMISSIONS):
        return None
    number = state.admitted.get(request.request_id)
    if number is None:
        return None
    host = state.job_hosts.get(number, repo_host(state, request.job.repo))
    return admission_of(state, number, host)


def remember_admission(state: DeskState, request: AdmitInput, number: int) -> None:
    """Keep the number given to `request`'s id (the newest `ADMISSIONS_KEPT` ids are kept)."""
    if not request.request_id:
        return
    state.admitted[request.request_id] = number
    while len(state.admitted) > ADMISSIONS_KEPT:
        del state.admitted[next(iter(state.admitted))]
