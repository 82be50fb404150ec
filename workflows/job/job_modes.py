"""Modes in a job: what the desk's `modes_changed` tells it, yolo approvals and long-running.

A mode is followed only when the job's starter is one of its owners: a job gains nothing its
starter could not have turned on (yolo always; long-running since patch
`modes-need-an-owner-starter`, before which any starter's job followed it). long-running lets
the work clock (`WorkClock`) go past the budget, one check interval at a time, never past
`long_running_max`.
"""

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

from workflows import patches
from workflows.calls.outbox_calls import send_to_outbox
from workflows.job.record.state import JobState

YOLO_BY = "yolo mode"


async def follow_modes(state: JobState, modes: JobModes) -> None:
    """The desk: a switch changed what this job follows (the job's thread is told)."""
    before = state.status.following
    state.modes = modes
    show_modes(state)
    if state.job.place is not None and state.status.following != before:
        place = state.job.place
        told = ThreadText(
            channel=place.channel,
            job=state.job.number,
            modes=modes,
            following=state.status.following,
        )
        await send_to_outbox(place, told)


def follows(state: JobState, mode: Mode) -> bool:
    """Whether the job follows `mode` now: only when an owner started it."""
    if state.job.starter not in state.job.owners and (
        mode == Mode.YOLO or workflow.patched(patches.MODES_NEED_OWNER)
    ):
        return False
    return state.modes.is_on(mode)


def show_modes(state: JobState) -> None:
    """Put the modes, and which of them the job follows, in its status."""
    state.status.modes = state.modes
    state.status.following = [mode.value for mode in Mode if follows(state, mode)]


def yolo_approves(state: JobState, classes: list[str]) -> bool:
    """Whether yolo mode approves a call held for `classes` now, without a card."""
    return follows(state, Mode.YOLO) and yolo_allows(
        classes, state.job.yolo_carded_classes, state.job.yolo_allow
    )


async def approve_by_yolo(
    state: JobState, tool: str, action: str, classes: list[str], ident: str
) -> HoldAnswer:
    """Approve a held call by yolo mode: the answer (in the job's history), the job's thread
    and the report say whose switch approved it."""
    switch = state.modes.yolo
    who = (switch.by.name or switch.by.id) if switch and switch.by else "an owner"
    by = f"{YOLO_BY}, switched on by {who}"
    summary, cut = held_summary(action or tool, state.job.report_held_chars)
    call = HeldCall(
        tool=tool,
        summary=summary,
        verdict=HoldVerdict.APPROVED,
        approval_id=ident,
        note=by,
        summary_cut=cut if workflow.patched(patches.HELD_CUT) else 0,
    )
    if all(seen.approval_id != ident for seen in state.yolo_approved):
        state.yolo_approved.append(call)
        place = state.job.place
        if place is not None and workflow.patched(patches.YOLO_TOLD):
            told = ThreadText(channel=place.channel, job=state.job.number, yolo_approved=call)
            await send_to_outbox(place, told)
    return HoldAnswer(
        verdict=HoldVerdict.APPROVED,
        why=HoldWhy.APPROVED_BY_YOLO,
        classes=classes,
        approval_id=ident,
        by=by,
    )


async def release_by_yolo(
    state: JobState, tool: str, action: str, classes: list[str], ident: str
) -> HoldAnswer:
    """Yolo was switched on while the call waited: its card closes, and yolo approves it."""
    answer = await approve_by_yolo(state, tool, action, classes, ident)
    state.job_withdrew.add(ident)
    child = workflow.get_external_workflow_handle(ident)
    try:
        await child.signal(APPROVAL_WITHDRAW_SIGNAL, WithdrawInput(reason=answer.by, by=YOLO_BY))
    except FailureError:  # it settled meanwhile: the call is approved by yolo all the same
        workflow.logger.info("Approval %s closed before yolo mode released it.", ident)
    return answer
