"""Modes at the desk: the `switch_mode` Update, and the switches pushed to the jobs they reach."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from desk.errors import ModeRefusedError
    from desk.failures import failure_of
    from desk.names import job_workflow_id
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

from workflows.job.modes import FollowsModes

MODES_BY_HOST_POLICY = "modes-host-policy"
"""Patch: who may switch a mode is the desk's host policy, not the owners a request names."""


class KeepsModes:
    """Mixed into the `Desk`: every scope's modes live in its state, carried across
    continue-as-new, and each switch is signalled at once to the running jobs it reaches.

    A switch is an Update: one that names no mode, value or scope that exists, or a finished
    job, is rejected by the validator (nothing happens). A switch by someone who is not an owner
    is accepted, then refused: the refusal is in the desk's history (the failed Update, with
    who asked) and in `state.modes.refusals`.
    """

    state: DeskState

    @workflow.update
    async def switch_mode(self, request: ModeRequest) -> ModeSwitched:
        """Switch a mode on a scope and tell the running jobs of that scope."""
        board = self.state.modes
        if not self._may_switch(request):
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
        reached = board.affected(switch, [*self.state.running, *self.state.queue])
        for number in reached:
            await self._tell_job(number)
        return ModeSwitched(switch=switch, jobs=reached)

    def _may_switch(self, request: ModeRequest) -> bool:
        """An owner by the desk's host policy (no policy: nobody); older histories trusted
        the owners their request named."""
        if not workflow.patched(MODES_BY_HOST_POLICY):
            return request.by.id in request.owners
        policy = self.state.policy
        return policy is not None and policy.owns(request.by.id, request.roles)

    @switch_mode.validator
    def _well_formed(self, request: ModeRequest) -> None:
        live = [*self.state.running, *self.state.queue]
        problem = mode_problem(request, self.state.last_number, live)
        if problem is not None:
            raise failure_of(problem)

    def modes_of_new_job(self, number: int, job: JobInput) -> JobInput:
        """The job as admitted, with the modes of its channel (or the desk) in force now."""
        thread = job.place.channel if job.place is not None else ""
        channels = [channel for channel in (thread, job.origin_channel) if channel]
        if channels:
            self.state.modes.job_channels[number] = list(dict.fromkeys(channels))
        return job.model_copy(update={"modes": self.state.modes.modes_for(number)})

    async def _tell_job(self, number: int) -> None:
        job = workflow.get_external_workflow_handle(job_workflow_id(number))
        try:
            await job.signal(FollowsModes.modes_changed, self.state.modes.modes_for(number))
        except FailureError:  # the job has just ended: nothing is left to follow the switch
            workflow.logger.info("Job %s ended before it heard a mode switch.", number)
