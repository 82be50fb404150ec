"""A job's narration in words: its thread's progress line, and what it tells its thread."""

from __future__ import annotations

from typing import assert_never

from desk.payloads.surfaces import ThreadProgress, ThreadText
from desk.policy.modes import modes_said
from desk.records.narration import Narration
from surfaces.render.blocks import cut_mark
from surfaces.render.words.push_words import push_result


def narration_text(progress: ThreadProgress) -> str:
    """`The agent works on branch worker/3…`: plain words, for every target to lay out."""
    said = progress.narration
    if said is None:
        return progress.text  # sent by a job of an earlier version, already in words
    match said:
        case Narration.CUTTING:
            return "Cutting a worktree from the clone's HEAD…"
        case Narration.WORKING:
            return f"The agent works on branch {progress.branch}…"
        case Narration.INTEGRATING:
            return "The agent is done; integrating its commits into the clone…"
        case Narration.WAITING_FOR_HOST:
            return (
                f"Waiting for host {progress.host}: no worker of that host polls now; "
                "the job goes on when one does."
            )
        case Narration.HOST_BACK:
            return f"Host {progress.host} is back; the job goes on."
        case Narration.SUSPENDED:
            return (
                f"Waiting for approval, suspended: {progress.held or 'a held call'}. The agent "
                "is stopped (no process, no slot) and resumes when the approval is answered."
            )
        case Narration.RESUMED:
            return f"The approval is answered; the agent resumes on branch {progress.branch}…"
        case Narration.REVIEW:
            return (
                f"Waiting for review: the work on branch {progress.branch} waits (no process, "
                "no slot). Write in this thread to ask for changes; `codedesk diff`, `codedesk "
                "integrate` or `codedesk discard` with the job's number see, land or drop it."
            )
        case Narration.REVISING:
            return f"Changes were asked; the agent resumes on branch {progress.branch}…"
        case Narration.ATTEMPTS:
            return (
                "The attempts work side by side, each in its own worktree; the job compares "
                "them once every one is in."
            )
        case Narration.COMPARING:
            return (
                "Every attempt is in: compare them with `codedesk show` and the job's number, "
                "then pick one (`codedesk pick`) or drop them all (`codedesk discard`)."
            )
        case _:
            assert_never(said)


def thread_text(told: ThreadText) -> str:
    """`Job 4: modes now yolo on (desk, by alice); long-running off.` for a switch, `Job 4: approved
    by yolo mode, switched on by alice: Run: rm -rf build` for a call yolo approved, `Job 4:
    Pushed 1a2b… to main at …` for the end of a push its agent asked for, else the text as it
    was sent."""
    if told.push_result is not None:
        blocks = push_result(told.push_result)
        said = " ".join("".join(span.text for span in block.parts) for block in blocks)
        return f"Job {told.job}: {said}"
    if told.yolo_approved is not None:
        call = told.yolo_approved
        said = call.summary + (cut_mark(call.summary_cut) if call.summary_cut else "")
        return f"Job {told.job}: approved by {call.note}: {said or call.tool}"
    if told.modes is None:
        return told.text
    return f"Job {told.job}: modes now {modes_said(told.modes, told.following)}."
