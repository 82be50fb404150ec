"""What every surface asks of the desk about modes: switch one, or show them all."""

from __future__ import annotations

from temporalio.client import Client, WorkflowQueryFailedError, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from desk.config.settings import DeskSettings
from desk.errors import DeskError, NoWorkerError
from desk.failures import error_of
from desk.holds.approvals import Principal
from desk.names import DESK_WORKFLOW_ID
from desk.policy.modes import ModeRequest, ModesView, ModeSwitched, ScopeKind, mode_problem
from surfaces.clients.listings.worker_check import require_worker
from workers.desk_handle import desk_start
from workflows.desk.desk_entity import Desk
from workflows.reasons import reason_of


class ModesClient:
    """Switches go to the `Desk` entity by Update; it tells the running jobs they reach."""

    def __init__(self, client: Client, settings: DeskSettings) -> None:
        self.client = client
        self.settings = settings

    async def switch(
        self,
        mode: str,
        value: str,
        *,
        by: Principal,
        scope: ScopeKind = ScopeKind.DESK,
        target: str = "",
        roles: list[str] | None = None,
    ) -> ModeSwitched:
        """Switch `mode` on or off on a scope, as `by`; refused unless `by` is an owner.

        Who is an owner is the desk's host policy: `by`'s id among its owners, or one of the
        Discord `roles` (which the bot read of `by`) among its owner roles.
        """
        request = ModeRequest(
            mode=mode, value=value, scope=scope.value, target=target, by=by, roles=roles or []
        )
        # The names are checked here too, so a bad one is an error even with no worker.
        problem = mode_problem(request.model_copy(update={"scope": "desk"}), 0, [])
        if problem is not None:
            raise problem
        await require_worker(self.client, self.settings.task_queue)
        try:
            return await self.client.execute_update_with_start_workflow(
                Desk.switch_mode, request, start_workflow_operation=desk_start(self.settings)
            )
        except WorkflowUpdateFailedError as error:
            if (refused := error_of(error)) is not None:
                raise refused from None
            reason = reason_of(error.cause or error)
            raise DeskError(f"The desk did not switch the mode: {reason}") from None

    async def view(self) -> ModesView:
        """Every scope's modes, each live job's, the latest switches and refusals."""
        await require_worker(self.client, self.settings.task_queue)
        handle = self.client.get_workflow_handle_for(Desk.run, DESK_WORKFLOW_ID)
        try:
            state = await handle.query(Desk.current)
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:  # no job has started yet
                return ModesView()
            raise NoWorkerError(f"The desk did not answer: {reason_of(error)}") from None
        except WorkflowQueryFailedError as error:
            raise NoWorkerError(f"The desk did not answer: {reason_of(error)}") from None
        board = state.modes
        live = sorted([*state.running, *state.queue])
        return ModesView(
            desk=board.desk,
            channels=board.channels,
            jobs={number: board.modes_for(number) for number in live},
            switches=board.switches,
            refusals=board.refusals,
            policy=state.policy,
        )
