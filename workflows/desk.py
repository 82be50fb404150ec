"""The `Desk` entity: numbers jobs for the whole desk (admission and the queue come later)."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.models import DeskState, TakeNumberInput


@workflow.defn(name="Desk")
class Desk:
    """One long-lived workflow, id `desk`, whose state is the last job number handed out."""

    @workflow.init
    def __init__(self, state: DeskState) -> None:
        self.state = state

    @workflow.run
    async def run(self, state: DeskState) -> None:
        await workflow.wait_condition(lambda: workflow.info().is_continue_as_new_suggested())
        await workflow.wait_condition(workflow.all_handlers_finished)
        workflow.continue_as_new(self.state)

    @workflow.update
    def take_number(self, request: TakeNumberInput) -> int:
        """Hand out the next job number; numbers count up from 1 and are never reused."""
        self.state.last_number += 1
        return self.state.last_number

    @workflow.query
    def current(self) -> DeskState:
        return self.state
