"""Modes in a job: the desk's `modes_changed` signal, yolo approvals and the long-running clock."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from desk.holds.approvals import (
        HeldCall,
        HoldAnswer,
        HoldVerdict,
        HoldWhy,
        WithdrawInput,
        held_summary,
    )
    from desk.names import APPROVAL_WITHDRAW_SIGNAL
    from desk.payloads.surfaces import ThreadText
    from desk.policy.modes import JobModes, Mode, yolo_allows

from workflows.job.state import JobState
from workflows.outbox_calls import send_to_outbox

YOLO_BY = "yolo mode"
YOLO_TOLD_PATCH = "yolo-approvals-told"
HELD_CUT_PATCH = "held-summary-cut-counted"
"""Patch: a held call's summary cut to `report_held_chars` counts what was cut (`summary_cut`)."""


class FollowsModes:
    """Mixed into `CodingJob`: the modes it follows now, told by the desk at every switch.

    yolo is followed only when the job's starter is one of its owners: a job gains nothing its
    starter could not have turned on. long-running lets the work clock (`WorkClock`) go past
    the budget, one check interval at a time, never past `long_running_max`.
    """

    state: JobState

    @workflow.signal
    async def modes_changed(self, modes: JobModes) -> None:
        """The desk: a switch changed what this job follows (the job's thread is told)."""
        before = self.state.status.following
        self.state.modes = modes
        self.show_modes()
        if self.state.job.place is not None and self.state.status.following != before:
            place = self.state.job.place
            told = ThreadText(
                channel=place.channel,
                job=self.state.job.number,
                modes=modes,
                following=self.state.status.following,
            )
            await send_to_outbox(place, told)

    def follows(self, mode: Mode) -> bool:
        if mode == Mode.YOLO and self.state.job.starter not in self.state.job.owners:
            return False
        return self.state.modes.is_on(mode)

    def show_modes(self) -> None:
        """Put the modes, and which of them the job follows, in its status."""
        self.state.status.modes = self.state.modes
        self.state.status.following = [mode.value for mode in Mode if self.follows(mode)]

    def yolo_allows(self, classes: list[str]) -> bool:
        """Whether yolo mode approves a call held for `classes` now, without a card."""
        return self.follows(Mode.YOLO) and yolo_allows(
            classes, self.state.job.yolo_carded_classes, self.state.job.yolo_allow
        )

    async def approve_by_yolo(
        self, tool: str, action: str, classes: list[str], ident: str
    ) -> HoldAnswer:
        """Approve a held call by yolo mode: the answer (in the job's history), the job's thread
        and the report say whose switch approved it."""
        switch = self.state.modes.yolo
        who = (switch.by.name or switch.by.id) if switch and switch.by else "an owner"
        by = f"{YOLO_BY}, switched on by {who}"
        summary, cut = held_summary(action or tool, self.state.job.report_held_chars)
        call = HeldCall(
            tool=tool,
            summary=summary,
            verdict=HoldVerdict.APPROVED,
            approval_id=ident,
            note=by,
            summary_cut=cut if workflow.patched(HELD_CUT_PATCH) else 0,
        )
        if all(seen.approval_id != ident for seen in self.state.yolo_approved):
            self.state.yolo_approved.append(call)
            place = self.state.job.place
            if place is not None and workflow.patched(YOLO_TOLD_PATCH):
                told = ThreadText(
                    channel=place.channel, job=self.state.job.number, yolo_approved=call
                )
                await send_to_outbox(place, told)
        return HoldAnswer(
            verdict=HoldVerdict.APPROVED,
            why=HoldWhy.APPROVED_BY_YOLO,
            classes=classes,
            approval_id=ident,
            by=by,
        )

    async def release_by_yolo(
        self, tool: str, action: str, classes: list[str], ident: str
    ) -> HoldAnswer:
        """Yolo was switched on while the call waited: its card closes, and yolo approves it."""
        answer = await self.approve_by_yolo(tool, action, classes, ident)
        child = workflow.get_external_workflow_handle(ident)
        try:
            await child.signal(
                APPROVAL_WITHDRAW_SIGNAL, WithdrawInput(reason=answer.by, by=YOLO_BY)
            )
        except FailureError:  # it settled meanwhile: the call is approved by yolo all the same
            workflow.logger.info("Approval %s closed before yolo mode released it.", ident)
        return answer
