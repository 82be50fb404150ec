"""What a job shows of itself as it goes: its phase, its narration, the host it waits for, and
what its branch holds so far."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio import workflow
from temporalio.common import SearchAttributeUpdate
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.jobs.worktrees import WorktreeActivities
    from desk.holds.budget_cards import BranchSoFar
    from desk.names import OUTCOME_ATTRIBUTE, PHASE_ATTRIBUTE, WAITING_HOST_ATTRIBUTE
    from desk.payloads.jobs import JobOutcome, JobPhase, SoFarInput, Worktree
    from desk.payloads.surfaces import ThreadProgress
    from desk.records.narration import Narration

from workflows.calls.outbox_calls import send_to_outbox
from workflows.host.host_routes import Route, on_host
from workflows.in_flight import heeding_cancel
from workflows.job.record.phases import JOB_PHASES
from workflows.job.record.state import JobState
from workflows.policies import git_step
from workflows.summaries import phase_details

T = TypeVar("T")


def set_phase(state: JobState, phase: JobPhase, outcome: JobOutcome | None = None) -> None:
    """Move the job to `phase` (a move the phase table has) and show it: in its status, its
    current details and its search attributes (with its outcome once it has one)."""
    JOB_PHASES.check_move(state.status.phase, phase)
    state.status.phase = phase
    workflow.set_current_details(phase_details(state.job, phase.value))
    updates: list[SearchAttributeUpdate[str]] = [PHASE_ATTRIBUTE.value_set(phase.value)]
    if outcome is not None:
        updates.append(OUTCOME_ATTRIBUTE.value_set(outcome.value))
    workflow.upsert_search_attributes(updates)


async def narrate(
    state: JobState, said: Narration, *, branch: str = "", host: str = "", held: str = ""
) -> None:
    """Short narration for the job's chat thread (one progress message, edited in place);
    the surface words it. An attempt says nothing there (its job tells the thread) until it is
    picked for a review of its own."""
    speaks = not state.job.attempt_of or state.picked_for_review
    if state.job.place is not None and speaks:
        place = state.job.place
        # While the agent works, the surface reads its lines from Temporal (not this history).
        working = state.status.phase == JobPhase.WORKING
        agent_of = workflow.info().workflow_id if working else ""
        progress = ThreadProgress(
            channel=place.channel,
            narration=said,
            branch=branch,
            host=host,
            held=held,
            agent_of=agent_of,
            job=state.job.number,
        )
        await heeding_cancel(send_to_outbox(place, progress))


async def on_the_clones_host(state: JobState, call: Callable[[Route], Awaitable[T]]) -> T:
    """Run a shelf step on the clone's host, waiting (and saying so) while it is gone."""

    async def waiting(host: str) -> None:
        await _waiting_for_host(state, host)

    return await on_host(call, state.job.host, state.job.host_wait, waiting)


async def _waiting_for_host(state: JobState, host: str) -> None:
    """Say (in the status, in visibility and in the job's thread) which host it waits for."""
    if host == state.status.waiting_for_host:
        return
    gone = host or state.status.waiting_for_host
    state.status.waiting_for_host = host
    workflow.upsert_search_attributes(
        [WAITING_HOST_ATTRIBUTE.value_set(host) if host else WAITING_HOST_ATTRIBUTE.value_unset()]
    )
    if host:
        await narrate(state, Narration.WAITING_FOR_HOST, host=host)
    else:
        await narrate(state, Narration.HOST_BACK, host=gone)


async def branch_so_far(state: JobState, worktree: Worktree, why: str) -> BranchSoFar:
    """What the job's branch holds now (commits, diffstat, uncommitted files), read on the
    clone's host `why` (the step's summary: "for the budget card")."""
    job = state.job
    return await on_the_clones_host(
        state,
        lambda route: workflow.execute_activity_method(
            WorktreeActivities.branch_so_far,
            SoFarInput(number=job.number, worktree=worktree, report_commits=job.report_commits),
            **(
                git_step(job.git_heartbeat_timeout)
                | route
                | ActivityConfig(summary=f"reading the branch {why}")
            ),
        ),
    )
