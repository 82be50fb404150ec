"""Submissions asked again: the `Desk` gives a repeated request id its first job number back."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.host_slots import queue_position, queued_on, repo_host, running_on
    from desk.payloads.jobs import Admission, AdmitInput, DeskState

REMEMBERED_ADMISSIONS = "remembered-admissions"
"""Patch: the desk answers a repeated submission with its first admission."""

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


class RemembersAdmissions:
    """Mixed into the `Desk`: each admitted request id and its number live in its state.

    The client sends the same request id (also its Update id) on every try. Temporal
    deduplicates an Update id only within one run; the desk's state, carried across
    continue-as-new, covers a try that reaches the next run: it gets the first number and
    nothing starts again.
    """

    state: DeskState

    def admitted_before(self, request: AdmitInput) -> bool:
        """Whether this submission already has a number (never true for one without an id)."""
        return bool(request.request_id) and request.request_id in self.state.admitted

    def repeat_admission(self, request: AdmitInput) -> Admission | None:
        """The admission of a submission seen before, as it stands now; None for a new one."""
        if not request.request_id or not workflow.patched(REMEMBERED_ADMISSIONS):
            return None
        number = self.state.admitted.get(request.request_id)
        if number is None:
            return None
        host = self.state.job_hosts.get(number, repo_host(self.state, request.job.repo))
        return admission_of(self.state, number, host)

    def remember_admission(self, request: AdmitInput, number: int) -> None:
        if not request.request_id:
            return
        self.state.admitted[request.request_id] = number
        while len(self.state.admitted) > ADMISSIONS_KEPT:
            del self.state.admitted[next(iter(self.state.admitted))]
