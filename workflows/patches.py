"""The patch ledger: every `workflow.patched` name, what it guards, when it came, and its way out.

A workflow's behaviour changes behind `workflow.patched(NAME)`: a run that passed that point
before the change replays the old branch, every other run takes the new one and records a
marker (and the `TemporalChangeVersion` search attribute) saying so. Each name is spelled once,
here, and every call site imports it; `tests/workflows/test_patch_ledger.py` holds the ledger to
the code and to the recorded histories, and `codedesk patches` (a line of `codedesk doctor`)
lists the running workflows that may still be on an old branch. How a patch retires, and why
the deprecated ones below could: docs/internals.md, "Retiring a patch".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.names import (
        ADD_REPO_WORKFLOW_TYPE,
        APPROVAL_WORKFLOW_TYPE,
        DESK_WORKFLOW_TYPE,
        JOB_WORKFLOW_TYPE,
        LIST_REPOS_WORKFLOW_TYPE,
        REPO_WORKFLOW_TYPE,
        SESSION_KEEP_WORKFLOW_TYPE,
        SHIP_WORKFLOW_TYPE,
    )


class PatchState(StrEnum):
    """Where a patch is on its way out."""

    ACTIVE = "active"
    """`workflow.patched`: both branches are in the code."""
    DEPRECATED = "deprecated"
    """`workflow.deprecate_patch`: only the new branch is left; the marker is still written
    and read, so runs that took the new branch replay. Next: removal."""


@dataclass(frozen=True)
class Patch:
    """One entry of the ledger."""

    name: str
    guards: str
    """What the new branch does, that the old one did not."""
    came: str
    """The day it came (ISO), from `git log -S'"NAME"' -- workflows/`."""
    commit: str
    """The commit it came with."""
    asked_by: frozenset[str]
    """The workflow types whose code asks it."""
    old_branch: str = ""
    """The recording (tests/histories/NAME.json) whose replay takes the old branch: proof that
    the old branch still replays. Empty when none does (`unrecorded` says why)."""
    unrecorded: str = ""
    """Why no recording takes the old branch."""
    state: PatchState = PatchState.ACTIVE
    retired: str = ""
    """For a deprecated patch: why no running workflow can still be on its old branch."""


HOST_QUEUES = "host-queues"
ADMISSION_CHECK = "admission-check"
REMEMBERED_ADMISSIONS = "remembered-admissions"
SLOT_BACK_BEFORE_INTEGRATION = "slot-back-before-integration"
SIGNAL_REPO_FIRST = "signal-repo-first"
LATE_APPROVALS = "late-approvals-count-once"
DISCARD_CANCELLED_WORKTREE = "discard-cancelled-worktree"
HOST_POLICY = "host-policy"
MODES_BY_HOST_POLICY = "modes-host-policy"
SHIP_HOST_POLICY = "ship-host-policy"
ADMISSION_CHECK_ACTIVITY = "admission-check-activity"
PUSH_MEMO = "push-memo"
SUPERSEDE_PUSHES = "supersede-stale-pushes"
WORKTREE_SETUP = "worktree-setup-and-check"
YOLO_TOLD = "yolo-approvals-told"
JOB_COST_ATTRIBUTE = "job-cost-attribute"
AGENT_SUSPENDS = "agent-suspends-for-approvals"
CANCEL_AT_EVERY_STEP = "job-cancel-reported-at-every-step"
DAILY_SPEND_LIMIT = "daily-spend-limit"
CANCEL_IN_FLIGHT = "cancel-in-flight"
SETUP_READ_AT_THE_CUT = "setup-read-at-the-cut"
SETUP_MEMO = "setup-memo"
WITHDRAW_UNKNOWN = "withdraw-unknown-answered"
ENTITIES_OUTLIVE_CANCEL = "entities-outlive-cancel"
OUTSIDE_SANDBOX = "card-says-outside-sandbox"
HELD_CUT = "held-summary-cut-counted"
RESULT_ASKED = "result-names-requester"
SHIP_HEAD_CHECK = "ship-head-check"
MODES_NEED_OWNER = "modes-need-an-owner-starter"
REPO_ENDS_OFF_SHELF = "repo-entity-ends-off-shelf"
SHIP_OUTCOME_TOLD = "ship-outcome-told"
OUTBOX_STARTED_AGAIN = "outbox-started-again"
WITHDRAWN_STAYS = "withdrawn-calls-stay-withdrawn"
MESSAGES_AFTER_THE_RUN = "agent-runs-again-for-messages"
RESUMABLE_CLI_SUSPENDS = "resumable-cli-suspends"
CHECK_GOES_BACK = "failed-check-goes-back-to-the-agent"
BUDGET_ASKS = "budget-pauses-and-asks"
SESSION_KEPT = "session-kept-after-the-job"
CONTINUATION = "continuation-resumes-a-finished-session"
REVIEW_STEP = "review-before-it-lands"
REVIEW_OWNERS_NOW = "review-answered-by-the-hosts-owners-now"
SESSION_KEPT_BESIDE_INTEGRATION = "session-keep-started-beside-the-integration"

JOB = frozenset({JOB_WORKFLOW_TYPE})
DESK = frozenset({DESK_WORKFLOW_TYPE})
REPO = frozenset({REPO_WORKFLOW_TYPE})

PATCHES = (
    Patch(
        HOST_QUEUES,
        guards="a shelf step runs on the queue of the clone's host, with a schedule-to-start "
        "timeout, not on the shared queue",
        came="2026-11-30",
        commit="a113f9c",
        asked_by=frozenset(
            {
                JOB_WORKFLOW_TYPE,
                REPO_WORKFLOW_TYPE,
                SHIP_WORKFLOW_TYPE,
                ADD_REPO_WORKFLOW_TYPE,
                LIST_REPOS_WORKFLOW_TYPE,
                SESSION_KEEP_WORKFLOW_TYPE,
            }
        ),
        unrecorded="asked only for a known host, and the recordings from before it knew none",
    ),
    Patch(
        ADMISSION_CHECK,
        guards="the desk checks a job on its host (clone, agent program, a running push) "
        "before it numbers it",
        came="2026-11-30",
        commit="5094d59",
        asked_by=DESK,
        old_branch="desk",
    ),
    Patch(
        REMEMBERED_ADMISSIONS,
        guards="a submission asked again (its request id seen) gets its first admission back",
        came="2026-11-30",
        commit="d3dc693",
        asked_by=DESK,
        unrecorded="asked only for a submission with a request id, which none recorded "
        "before it had",
    ),
    Patch(
        SLOT_BACK_BEFORE_INTEGRATION,
        guards="a job gives its desk slot back when it asks to integrate, not when it ends",
        came="2026-11-30",
        commit="5dd8593",
        asked_by=JOB,
        old_branch="coding_job_integrated",
    ),
    Patch(
        SIGNAL_REPO_FIRST,
        guards="a job signals its repository's entity first and starts it only when none runs",
        came="2026-11-30",
        commit="95b80e3",
        asked_by=JOB,
        old_branch="coding_job_integrated",
    ),
    Patch(
        LATE_APPROVALS,
        guards="an approval that came after every hook waiting on it gave up is used once, by "
        "the next identical call",
        came="2026-11-30",
        commit="0acce15",
        asked_by=JOB,
        unrecorded="asked only when an identical call follows a late approval; the one "
        "recording of a late approval came with the patch",
    ),
    Patch(
        DISCARD_CANCELLED_WORKTREE,
        guards="a job cancelled while its worktree is cut removes what the cut left",
        came="2026-11-30",
        commit="d8f42aa",
        asked_by=JOB,
        unrecorded="asked only for a cancel during the cut, which no recording has",
        state=PatchState.DEPRECATED,
        retired="its old branch ends the job: the cancelled job reports, tells its desk, its "
        "thread and its result hooks, waiting on the Temporal server alone, and closes",
    ),
    Patch(
        HOST_POLICY,
        guards="a job is judged by the desk's host policy, not by what its requester sent",
        came="2026-12-01",
        commit="741fbe6",
        asked_by=DESK,
        old_branch="desk",
    ),
    Patch(
        MODES_BY_HOST_POLICY,
        guards="who may switch a mode is the host policy's owners, not the owners a request names",
        came="2026-12-01",
        commit="741fbe6",
        asked_by=DESK,
        old_branch="desk_modes",
    ),
    Patch(
        SHIP_HOST_POLICY,
        guards="whether a push waits for an owner, and who may approve it, is the desk's host "
        "policy",
        came="2026-12-01",
        commit="741fbe6",
        asked_by=frozenset({SHIP_WORKFLOW_TYPE}),
        old_branch="ship_pushed",
    ),
    Patch(
        ADMISSION_CHECK_ACTIVITY,
        guards="the desk's admission check is an activity, not a local activity that held the "
        "speculative Update task open",
        came="2026-12-01",
        commit="82bb081",
        asked_by=DESK,
        old_branch="desk_admission_checked",
    ),
    Patch(
        PUSH_MEMO,
        guards="the repository entity's memo says which push runs, for admission to read",
        came="2026-12-01",
        commit="0c2ba71",
        asked_by=REPO,
        old_branch="repo_entity",
    ),
    Patch(
        SUPERSEDE_PUSHES,
        guards="once the clone moves on, the pushes of older receipts that wait are told",
        came="2026-12-01",
        commit="5074b13",
        asked_by=REPO,
        old_branch="repo_entity",
    ),
    Patch(
        WORKTREE_SETUP,
        guards="a job sets its worktree up before the agent and runs the owner's check after",
        came="2026-12-02",
        commit="9a31ba6",
        asked_by=JOB,
        old_branch="coding_job_integrated",
    ),
    Patch(
        YOLO_TOLD,
        guards="a call yolo mode approves is told in the job's thread",
        came="2026-12-02",
        commit="4e86ccd",
        asked_by=JOB,
        unrecorded="asked only when yolo approves a call of a job with a thread, which no "
        "recording from before it has",
    ),
    Patch(
        JOB_COST_ATTRIBUTE,
        guards="a job that ends with a known cost in dollars sets `CodedeskCostUsd`",
        came="2026-12-02",
        commit="e5ba571",
        asked_by=JOB,
        unrecorded="coding_job_usage took it, and went when the patch retired",
        state=PatchState.DEPRECATED,
        retired="asked as the report is out: its old branch only hands the report to the job's "
        "thread and result hooks, waiting on the Temporal server alone, and closes",
    ),
    Patch(
        AGENT_SUSPENDS,
        guards="the job's agent may defer a held call and end; the job waits for the approval "
        "without it (suspended)",
        came="2026-12-03",
        commit="d868918",
        asked_by=JOB,
        old_branch="coding_job_hold_approved",
    ),
    Patch(
        CANCEL_AT_EVERY_STEP,
        guards="a cancel during the set-up, the check or a narration ends the job with a "
        "report, where the workflow once ended cancelled, unreported",
        came="2026-12-03",
        commit="490e77a",
        asked_by=JOB,
        unrecorded="asked only for a cancel at those steps, which no recording from before it has",
        state=PatchState.DEPRECATED,
        retired="its old branch ends the job: the cancel leaves the workflow at once (an "
        "activity's cancel after telling the desk, waiting on the Temporal server alone)",
    ),
    Patch(
        DAILY_SPEND_LIMIT,
        guards="while the day's spend limit is reached, the desk's queue waits for the next UTC "
        "day",
        came="2026-12-03",
        commit="d790b8c",
        asked_by=DESK,
        unrecorded="asked only once a daily limit holds a queue, which only desks of its "
        "version have",
    ),
    Patch(
        CANCEL_IN_FLIGHT,
        guards="a cancel that lands while a message is in flight is raised when it lands",
        came="2026-12-04",
        commit="e15d0ab",
        asked_by=frozenset({JOB_WORKFLOW_TYPE, APPROVAL_WORKFLOW_TYPE}),
        unrecorded="asked only when a cancel meets a message in flight, which no recording has",
    ),
    Patch(
        SETUP_READ_AT_THE_CUT,
        guards="a job skips its set-up (its check) when the set-up read at the cut (at the "
        "agent's end) has none",
        came="2026-12-04",
        commit="95dfe04",
        asked_by=JOB,
        unrecorded="asked only with a set-up read at the cut, which only workers of its "
        "version make",
    ),
    Patch(
        SETUP_MEMO,
        guards="the repository entity's memo carries its set-up, for jobs to read without a worker",
        came="2026-12-04",
        commit="bc8ebb5",
        asked_by=REPO,
        old_branch="repo_entity",
    ),
    Patch(
        WITHDRAW_UNKNOWN,
        guards="a withdrawal from a job neither queued nor integrating is answered withdrawn at "
        "once",
        came="2026-12-05",
        commit="4baa36c",
        asked_by=REPO,
        unrecorded="asked only for such a withdrawal, which no recording has",
    ),
    Patch(
        ENTITIES_OUTLIVE_CANCEL,
        guards="an entity a workflow starts (outbox, repository, result delivery) is abandoned "
        "to the starter's cancel, not cancelled with it",
        came="2026-12-05",
        commit="4baa36c",
        asked_by=frozenset({JOB_WORKFLOW_TYPE, APPROVAL_WORKFLOW_TYPE, SHIP_WORKFLOW_TYPE}),
        old_branch="coding_job_integrated",
    ),
    Patch(
        HELD_CUT,
        guards="a held call's summary cut to report_held_chars counts what was cut (summary_cut)",
        came="2026-12-06",
        commit="ca94858",
        asked_by=JOB,
        old_branch="coding_job_hold_late_approved",
    ),
    Patch(
        OUTSIDE_SANDBOX,
        guards="the card of a sandboxed call that reaches outside the worktree says it cannot",
        came="2026-12-06",
        commit="aff3389",
        asked_by=JOB,
        unrecorded="asked only when a call is held, which the recordings made before it did "
        "not take past this point",
    ),
    Patch(
        RESULT_ASKED,
        guards="a job's or push's result says who asked for it and where (ResultAsked: the "
        "result hooks' delivery, and the requester on a job's report for its thread)",
        came="2026-12-06",
        commit="4a7a809",
        asked_by=frozenset({JOB_WORKFLOW_TYPE, SHIP_WORKFLOW_TYPE}),
        old_branch="coding_job_integrated",
    ),
    Patch(
        SHIP_HEAD_CHECK,
        guards="a push of a SHA that is not the clone's HEAD is refused before its approval "
        "opens (before, it opened the card and was refused only once approved)",
        came="2026-12-06",
        commit="de8d38d",
        asked_by=frozenset({SHIP_WORKFLOW_TYPE}),
        old_branch="ship_pushed",
    ),
    Patch(
        MODES_NEED_OWNER,
        guards="a job whose starter is no owner follows no long-running mode either (it "
        "followed long-running for any starter, yolo only for an owner's job)",
        came="2026-12-06",
        commit="6f6d1e5",
        asked_by=JOB,
        old_branch="coding_job_integrated",
    ),
    Patch(
        REPO_ENDS_OFF_SHELF,
        guards="a repository's entity looks at its run's start whether its clone is on its "
        "host's shelf, and ends, once idle, when it is not",
        came="2026-12-06",
        commit="533117c",
        asked_by=REPO,
        old_branch="repo_entity",
    ),
    Patch(
        SHIP_OUTCOME_TOLD,
        guards="the push a job's agent asked for tells the job's thread how it ended",
        came="2026-12-06",
        commit="ec07e9f",
        asked_by=frozenset({SHIP_WORKFLOW_TYPE}),
        unrecorded="asked only for an agent's push from a job with a thread, which no "
        "recording from before it has",
    ),
    Patch(
        OUTBOX_STARTED_AGAIN,
        guards="an item whose outbox ended between its start and the item's signal starts the "
        "outbox again (its report out) and is shown, where it was lost",
        came="2026-12-06",
        commit="ec07e9f",
        asked_by=frozenset({JOB_WORKFLOW_TYPE, APPROVAL_WORKFLOW_TYPE, SHIP_WORKFLOW_TYPE}),
        unrecorded="asked only when an outbox ends between the start and the signal, which no "
        "recording has",
    ),
    Patch(
        WITHDRAWN_STAYS,
        guards="a call a person withdrew is never held again: an identical call is refused as "
        "withdrawn without a card, and one withdrawn after its hook gave up is listed",
        came="2026-12-06",
        commit="0dc2d39",
        asked_by=JOB,
        unrecorded="asked only when a person withdraws a job's call, which no recording from "
        "before it has",
    ),
    Patch(
        MESSAGES_AFTER_THE_RUN,
        guards="messages that had not reached the agent when its run ended run it again (its "
        "session resumed with them) before the check and the integration",
        came="2026-12-06",
        commit="53ba91b",
        asked_by=JOB,
        unrecorded="asked only when a message is pending as the agent's run ends, which no "
        "recording before it has",
    ),
    Patch(
        RESUMABLE_CLI_SUSPENDS,
        guards="a held call of a CLI that cannot defer but resumes its session (codex) "
        "suspends the job too: the run is ended, and the answer resumes the session as its "
        "prompt (before, such a call waited live for the hold wait and was refused)",
        came="2026-12-06",
        commit="72e4fe9",
        asked_by=JOB,
        old_branch="coding_job_suspended",
    ),
    Patch(
        CHECK_GOES_BACK,
        guards="a blocking check that failed goes back to the agent (its tail a message to the "
        "agent's session, which runs again) up to the owner's check_retries, before the job "
        "reports it",
        came="2026-12-06",
        commit="fca97b8",
        asked_by=JOB,
        unrecorded="asked only when a blocking check fails, which no recording before it has",
    ),
    Patch(
        BUDGET_ASKS,
        guards="a job whose agent reaches its work budget or spend limit, and whose session "
        "resumes, pauses with no process and no slot and asks a person on a budget card: go "
        "on (another budget, the session resumed), finish here (check and integrate) or stop "
        "(before, the budget ended the job)",
        came="2026-12-06",
        commit="8716da3",
        asked_by=JOB,
        unrecorded="asked only when a job whose host lets it ask reaches its budget with a "
        "session to resume, which no recording from before it has",
    ),
    Patch(
        SESSION_KEPT,
        guards="a job whose agent ran keeps its agent's session once it ends: a `SessionKeep` "
        "removes it after the host's CODEDESK_SESSION_KEEP (before, an integration removed it "
        "at once), and the report says until when",
        came="2026-12-06",
        commit="3f129e5",
        asked_by=JOB,
        old_branch="coding_job_integrated",
    ),
    Patch(
        CONTINUATION,
        guards="a job that continues a finished one (a message after its report) starts with "
        "that message, cuts its worktree from the finished job's kept branch, and its agent's "
        "first run resumes the finished job's session with it",
        came="2026-12-06",
        commit="61e3eec",
        asked_by=JOB,
        unrecorded="asked only for a continuation, which no recording from before it has",
    ),
    Patch(
        REVIEW_STEP,
        guards="a job asked for review (`task --review`, `repo set --review`, or a set-up that "
        "could not be read: fail closed) waits in phase `review` after the agent and the check, "
        "with no process and no slot, until a person integrates, revises (`say`: the agent "
        "resumes its session) or discards it",
        came="2026-12-06",
        commit="926052b",
        asked_by=JOB,
        old_branch="coding_job_cost_attribute",
    ),
    Patch(
        REVIEW_OWNERS_NOW,
        guards="a round of review reads the host's owners as it opens (the desk's host policy): "
        "they may answer it (integrate, discard, revise) as the owners the job recorded when it "
        "started may (before, only those)",
        came="2026-12-06",
        commit="054f229",
        asked_by=JOB,
        old_branch="coding_job_reviewed",
    ),
    Patch(
        SESSION_KEPT_BESIDE_INTEGRATION,
        guards="a job that integrates starts its `SessionKeep` as it asks for the integration, "
        "beside it, not once the integration has answered: the start's round trip is off the "
        "report's path",
        came="2026-12-06",
        commit="6b1058d",
        asked_by=JOB,
        old_branch="coding_job_session_kept",
    ),
)
"""Every patch the workflows ask, oldest first."""

BY_NAME = MappingProxyType({patch.name: patch for patch in PATCHES})
