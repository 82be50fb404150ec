"""Modes in a job: the desk's `modes_changed` signal, yolo approvals and the long-running clock."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from desk.config.durations import format_duration
    from desk.holds.approvals import HeldCall, HoldAnswer, HoldVerdict, WithdrawInput
    from desk.names import APPROVAL_WITHDRAW_SIGNAL
    from desk.payloads.jobs import JobInput, JobStatus
    from desk.payloads.surfaces import ThreadText
    from desk.policy.modes import JobModes, Mode, long_running_allowance, modes_said, yolo_allows

from workflows.outbox_calls import send_to_outbox

YOLO_BY = "yolo mode"


class FollowsModes:
    """Mixed into `CodingJob`: the modes it follows now, told by the desk at every switch.

    yolo is followed only when the job's starter is one of its owners: a job gains nothing its
    starter could not have turned on. long-running lets the work clock go past the budget, one
    check interval at a time, never past `long_running_max`.
    """

    job: JobInput
    status: JobStatus
    modes: JobModes
    yolo_approved: list[HeldCall]
    extended_by: timedelta
    work_allowed: timedelta
    """The work the clock allowed when it was last looked at."""

    def init_modes(self) -> None:
        """The modes' state of a new job (called from the workflow's __init__)."""
        self.modes = self.job.modes
        self.yolo_approved = []
        self.extended_by = timedelta(0)
        self.work_allowed = self.job.budget
        self._show_modes()

    @workflow.signal
    async def modes_changed(self, modes: JobModes) -> None:
        """The desk: a switch changed what this job follows (the job's thread is told)."""
        before = self.status.following
        self.modes = modes
        self._show_modes()
        if self.job.place is not None and self.status.following != before:
            place = self.job.place
            await send_to_outbox(place, ThreadText(channel=place.channel, text=self.modes_line()))

    def follows(self, mode: Mode) -> bool:
        if mode == Mode.YOLO and self.job.starter not in self.job.owners:
            return False
        return self.modes.is_on(mode)

    def modes_line(self) -> str:
        """`Job 4: modes now yolo on (desk, by alice); long-running off.`, for its thread."""
        said = modes_said(self.modes, self.status.following)
        return f"Job {self.job.number}: modes now {said}."

    def _show_modes(self) -> None:
        self.status.modes = self.modes
        self.status.following = [mode.value for mode in Mode if self.follows(mode)]

    def yolo_allows(self, classes: list[str]) -> bool:
        """Whether yolo mode approves a call held for `classes` now, without a card."""
        return self.follows(Mode.YOLO) and yolo_allows(
            classes, self.job.yolo_carded_classes, self.job.yolo_allow
        )

    def approve_by_yolo(self, tool: str, action: str, classes: list[str], ident: str) -> HoldAnswer:
        """Approve a held call by yolo mode: the answer (in the job's history) and the report say
        whose switch approved it."""
        switch = self.modes.yolo
        who = (switch.by.name or switch.by.id) if switch and switch.by else "an owner"
        by = f"{YOLO_BY}, switched on by {who}"
        summary = (action or tool)[: self.job.report_held_chars]
        call = HeldCall(
            tool=tool, summary=summary, verdict=HoldVerdict.APPROVED, approval_id=ident, note=by
        )
        if all(seen.approval_id != ident for seen in self.yolo_approved):
            self.yolo_approved.append(call)
        return HoldAnswer(verdict=HoldVerdict.APPROVED, classes=classes, approval_id=ident, by=by)

    async def release_by_yolo(
        self, tool: str, action: str, classes: list[str], ident: str
    ) -> HoldAnswer:
        """Yolo was switched on while the call waited: its card closes, and yolo approves it."""
        answer = self.approve_by_yolo(tool, action, classes, ident)
        child = workflow.get_external_workflow_handle(ident)
        try:
            await child.signal(
                APPROVAL_WITHDRAW_SIGNAL, WithdrawInput(reason=answer.by, by=YOLO_BY)
            )
        except FailureError:  # it settled meanwhile: the call is approved by yolo all the same
            workflow.logger.info("Approval %s closed before yolo mode released it.", ident)
        return answer

    def work_allowance(self, worked: timedelta) -> timedelta:
        """The work the job may have done before its clock is looked at again.

        The extension is the work done past the budget under an allowance long-running mode
        gave: a clock that overran the budget by a timer's lateness, with the mode off, was not
        extended; the interval a job finishes after the mode was switched off was.
        """
        budget = self.job.budget
        if worked > budget and self.work_allowed > budget:
            self.extended_by = max(self.extended_by, min(worked, self.work_allowed) - budget)
        self.work_allowed = long_running_allowance(
            worked,
            budget,
            self.job.long_running_max,
            self.job.long_running_check,
            self.follows(Mode.LONG_RUNNING),
        )
        return self.work_allowed

    def extension_said(self) -> str:
        """What a timed-out job's report adds when long-running mode had extended its budget."""
        if not self.extended_by:
            return ""
        ceiling = self.job.long_running_max
        reached = self.job.budget + self.extended_by >= ceiling
        extended = format_duration(self.extended_by)
        return f" Long-running mode extended the budget by {extended}" + (
            f", up to its ceiling of {format_duration(ceiling)}." if reached else "."
        )

    def agent_time_limit(self) -> timedelta:
        """The agent activity's own limit: the longest the work clock could allow."""
        return max(self.job.budget, self.job.long_running_max)
