"""Modes at the desk: what a `switch_mode` does, and the switches pushed to the jobs they reach.

Every scope's modes live in the desk's state, carried across continue-as-new, and each switch is
signalled at once (by name) to the running jobs it reaches. A switch is an Update: one that names
no mode, value or scope that exists, or a finished job, is rejected by the validator (nothing
happens). A switch by someone who is not an owner is accepted, then refused: the refusal is in
the desk's history (the failed Update, with who asked) and in `state.modes.refusals`.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from desk.errors import ModeRefusedError
    from desk.failures import failure_of
    from desk.names import JOB_MODES_CHANGED_SIGNAL, job_workflow_id
    from desk.payloads.jobs import DeskState, JobInput
    from desk.policy.modes import (
        ON_OFF,
        Mode,
        ModeRefusal,
        ModeRequest,
        ModeSwitch,
        ModeSwitched,
        ScopeKind,
        mode_problem,
    )

from workflows import patches


async def apply_switch(state: DeskState, request: ModeRequest) -> ModeSwitched:
    """Switch a mode on a scope and tell the running jobs of that scope."""
    board = state.modes
    if not _may_switch(state, request):
        who = request.by.name or request.by.id
        reason = f"{who} is not an owner: only owners switch modes."
        board.refuse(ModeRefusal(request=request, reason=reason, at=workflow.now()))
        workflow.logger.warning("Mode switch refused: %s", reason)
        raise failure_of(
            ModeRefusedError(f"{reason} Nothing was switched; the refusal is recorded.")
        )
    switch = ModeSwitch(
        mode=Mode(request.mode),
        on=ON_OFF[request.value],
        scope=ScopeKind(request.scope),
        target=request.target.strip(),
        by=request.by,
        at=workflow.now(),
    )
    board.apply(switch)
    reached = board.affected(switch, [*state.running, *state.queue])
    for number in reached:
        await _tell_job(state, number)
    return ModeSwitched(switch=switch, jobs=reached)


def refuse_malformed(state: DeskState, request: ModeRequest) -> None:
    """The switch's validator: a mode, value or scope that does not exist, or a finished job."""
    live = [*state.running, *state.queue]
    problem = mode_problem(request, state.last_number, live)
    if problem is not None:
        raise failure_of(problem)


def modes_of_new_job(state: DeskState, number: int, job: JobInput) -> JobInput:
    """The job as admitted, with the modes of its channel (or the desk) in force now."""
    thread = job.place.channel if job.place is not None else ""
    channels = [channel for channel in (thread, job.origin_channel) if channel]
    if channels:
        state.modes.job_channels[number] = list(dict.fromkeys(channels))
    return job.model_copy(update={"modes": state.modes.modes_for(number)})


def _may_switch(state: DeskState, request: ModeRequest) -> bool:
    """An owner by the desk's host policy (no policy: nobody); older histories trusted
    the owners their request named."""
    if not workflow.patched(patches.MODES_BY_HOST_POLICY):
        return request.by.id in request.owners
    policy = state.policy
    return policy is not None and policy.owns(request.by.id, request.roles)


async def _tell_job(state: DeskState, number: int) -> None:
    job = workflow.get_external_workflow_handle(job_workflow_id(number))
    try:
        await job.signal(JOB_MODES_CHANGED_SIGNAL, state.modes.modes_for(number))
    except FailureError:  # the job has just ended: nothing is left to follow the switch
        workflow.logger.info("Job %s ended before it heard a mode switch.", number)
