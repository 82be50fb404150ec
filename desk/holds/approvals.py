"""Approval payloads, the approval id of a call, and the hold request and answer.

An approval is a structured payload, never pre-rendered prose: each surface renders it as a
card under its own budget. Identical calls (same scope, tool and canonical input) share one
approval, because its id carries a digest of the call.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, model_validator

from desk.holds.budget_cards import BudgetCard
from desk.holds.held_calls import call_digest
from desk.records.base import Payload, ScrubbedData, ScrubbedText
from desk.records.job_states import JobPhase
from desk.records.repo_setup import CommandRun
from desk.scrub import scrub_data

APPROVAL_ID_PREFIX = "approval-"


class Principal(Payload):
    """Someone who answers: a stable id (`local:alice`, `discord:1234`) and a display name."""

    id: str
    name: str = ""


class FileRef(Payload):
    """A file a call sends, by path; its size is read when the card is rendered."""

    path: str


class SurfacePlace(Payload):
    """Where on a surface something is shown: its task queue and a channel or thread id."""

    queue: str
    """The task queue of the host that renders this surface (`codedesk-discord`)."""
    channel: str = ""
    """The channel or thread (a job's thread) to show it in."""


class AgentShipAsk(Payload):
    """An agent's push that an owner approved and codedesk ships itself (a push's card links it)."""

    job: int
    approval_id: str
    """The approval of the agent's call (`approval-job-<n>-…`)."""
    branch: str
    """The origin branch the agent asked to push to."""
    approved_by: str = ""
    sha: str = ""
    """For a branch other than the default: the job's HEAD when the agent asked, which codedesk
    pushes (empty: the default branch, pushed as the integrated SHA through a `Ship`)."""
    check: CommandRun | None = None
    """The repository's check of the job's work, for the push's card (None: it has none)."""


class ApprovalRequest(Payload):
    """What a person is asked to approve."""

    tool: str
    input: ScrubbedData = Field(default_factory=dict)
    title: ScrubbedText = ""
    action: ScrubbedText = ""
    parameters: dict[str, Any] | None = None
    """The tool's parameter JSON Schema, when known: the card is a field list built from it."""
    files: list[FileRef] = Field(default_factory=list)
    scope: str
    """Where the call comes from: a job (`job-7`) or a conversation."""
    approvers: list[str] = Field(default_factory=list)
    """Principal ids who may answer; empty means `owners`."""
    owners: list[str] = Field(default_factory=list)
    origin: str = ""
    """The surface the call came from (`cli`, `discord`), for the card's footer."""
    place: SurfacePlace | None = None
    """Where a surface shows the card; None: only `codedesk approvals` lists it."""
    thread_workflow_id: str = ""
    """A job thread that shows the card in order with its other messages (else posted here)."""
    copy_text: ScrubbedText = ""
    expires_at: datetime | None = None
    classes: list[str] = Field(default_factory=list)
    """Why the call is held (hold classes such as `push`), for the card's footer."""
    input_digest: str = ""
    """The SHA-256 of the call's full input when `input` is only a bounded preview of it."""
    input_bytes: int = 0
    """The size of the call's full input (its canonical JSON) when `input` is a preview."""
    ships_to: str = ""
    """The agent's plain push to this default branch: approving it does not run the command in
    the sandbox; codedesk asks for the push of the job's integrated commit instead."""
    agent_ship: AgentShipAsk | None = None
    """On a push's card: the agent's approved call this push carries out."""
    pushes_to: str = ""
    """The agent's plain push to this branch (not the default): approving it does not run the
    command; codedesk pushes exactly `push_head` there, never forced."""
    push_head: str = ""
    """The job's HEAD when the agent asked to push to `pushes_to`."""
    confined: bool = False
    """The call would run in the agent's sandbox once approved (no credentials, no origin)."""
    outside_sandbox: bool = False
    """The call would run in the agent's sandbox and writes, removes or changes a path outside
    the worktree, which the sandbox does not bind writable: it cannot do that on the host."""
    budget: BudgetCard | None = None
    """A budget card (issue 47): the job's agent reached its budget; approving lets it go on,
    declining stops the job, `codedesk finish` ends it here. No call runs."""

    def may_answer(self, principal: Principal) -> bool:
        """Whether `principal` may approve or decline (fails closed: nobody when none named)."""
        allowed = self.approvers or self.owners
        return principal.id in allowed


class Decision(StrEnum):
    APPROVE = "approve"
    DECLINE = "decline"


class AnswerInput(Payload):
    """An approve or decline, from someone, given on some card.

    The `approve` and `decline` signals ignore `decision`; the `answer` update reads it.
    """

    by: Principal
    decision: Decision = Decision.APPROVE
    card_id: str = ""


class WithdrawInput(Payload):
    reason: ScrubbedText = ""
    by: str = ""


class WithdrawCall(Payload):
    """`codedesk withdraw` of a job's call whose approval is no longer open, asked of its job:
    a late approval nobody used yet is forgotten, and the call is never held again."""

    approval_id: str
    reason: ScrubbedText = ""
    by: str = ""


class CallWithdrawalKind(StrEnum):
    """What a job's `withdraw_call` did (the surface words it)."""

    FORGOTTEN = "forgotten"
    """Approved after the hook gave up, not used yet: forgotten; it will not run."""
    WITHDRAWING = "withdrawing"
    """Its approval was still open: withdrawn now, unless an answer came first."""
    ALREADY = "already"
    """Withdrawn before: nothing changed."""
    APPROVED = "approved"
    """Approved before the withdrawal: the call ran, or runs (an approval answered first
    stands)."""
    SETTLED = "settled"
    """Declined, expired or closed: nothing of it runs, so nothing changed (`outcome` says how)."""
    UNKNOWN = "unknown"
    """The job held no call of that id."""


class CallWithdrawal(Payload):
    """A job's answer to `withdraw_call`."""

    approval_id: str
    kind: CallWithdrawalKind
    job: int = 0
    outcome: str = ""
    """For `SETTLED`: how the approval settled (an `OutcomeKind`)."""


class OutcomeWatch(Payload):
    """Who waits on an approval's outcome by the `outcome` update (shown in its history)."""

    watcher: str = ""


class OutcomeKind(StrEnum):
    APPROVED = "approved"
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"
    EXPIRED = "expired"
    CANCELLED = "cancelled"


class ApprovalOutcome(Payload):
    """How an approval settled; the first answer or withdrawal wins."""

    kind: OutcomeKind
    approval_id: str
    by: Principal | None = None
    card_id: str = ""
    at: datetime | None = None
    note: ScrubbedText = ""


class AnswerResult(Payload):
    """Whether an answer counted, and why not when it did not."""

    counted: bool
    reason: ScrubbedText = ""
    outcome: ApprovalOutcome | None = None


class IgnoredAnswer(Payload):
    by: Principal
    decision: Decision
    reason: ScrubbedText
    at: datetime | None = None


class ApprovalState(Payload):
    """What the `state` query answers: the request, the outcome once settled, ignored answers."""

    approval_id: str
    request: ApprovalRequest
    outcome: ApprovalOutcome | None = None
    ignored: list[IgnoredAnswer] = Field(default_factory=list)
    opened_at: datetime | None = None


def approval_id(scope: str, tool: str, input: dict[str, Any]) -> str:
    """`approval-<scope>-<digest>`: the digest of the tool and the canonical input."""
    return approval_id_of_digest(scope, call_digest(tool, input))


def approval_id_of_digest(scope: str, digest: str) -> str:
    """`approval-<scope>-<digest>` from a call's digest (`desk.holds.held_calls.call_digest`)."""
    return f"{APPROVAL_ID_PREFIX}{scope}-{digest[:16]}"


def approval_scope(ident: str) -> str:
    """The scope of approval id `ident` (`job-7` of `approval-job-7-<digest>`), or ""."""
    if not ident.startswith(APPROVAL_ID_PREFIX) or len(ident) < len(APPROVAL_ID_PREFIX) + 18:
        return ""
    return ident[len(APPROVAL_ID_PREFIX) : -17]


class HoldVerdict(StrEnum):
    """The answer `codedesk hold` gets from the job."""

    ALLOWED = "allowed"
    """Nothing in the call needs a person."""
    APPROVED = "approved"
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"
    EXPIRED = "expired"
    PENDING = "pending"
    """Nobody answered within the wait; the approval stays open."""
    SHIP_REQUESTED = "ship_requested"
    """Approved, and codedesk carries the push out itself: the call does not run."""
    DEFERRED = "deferred"
    """Nobody answered within the live window: the agent's CLI defers the call and ends, and
    the job waits for the approval without it (the channel's answer; never the job's)."""


class CallSummary(Payload):
    """A held call as the worker's hold channel read it on its full input: bounded, so a hold
    never carries megabytes into the job's history."""

    digest: str
    """`desk.holds.held_calls.call_digest` of the tool and the full input: identical calls share
    it."""
    input_bytes: int = 0
    classes: list[str] = Field(default_factory=list)
    action: ScrubbedText = ""
    ships_to: str = ""
    """The call is a plain push of the job's work to this default branch, which codedesk
    carries out itself once approved (activities/holds/ship_target.py)."""
    pushes_to: str = ""
    """The call is a plain push of the job's work to this other branch: codedesk pushes
    `push_head` there once approved."""
    push_head: str = ""
    """The job's HEAD when the call was made (part of the digest: a later HEAD is a new call)."""
    confined: bool = False
    """The agent runs in the sandbox: an approved call runs there, without credentials and
    without a route to the origin."""
    outside_sandbox: bool = False
    """The agent runs in the sandbox and the call writes, removes or changes a path outside the
    worktree (`desk.holds.held_calls.reaches_outside`): approved, it fails there or stays inside."""


class HoldRequest(Payload):
    """One tool call an agent's hook asks about.

    From the hold channel, `summary` is set: the call is classified already and `input` is a
    bounded preview. Without it (an older caller), the job classifies `input` itself.
    """

    tool: str
    input: ScrubbedData = Field(default_factory=dict)
    parameters: dict[str, Any] | None = None
    wait_seconds: float = 600.0
    summary: CallSummary | None = None
    scrubbed: bool = False
    """The input held a credential, scrubbed before anything recorded it: the rule never sees
    the call as it runs, so it waits for a person."""

    @model_validator(mode="before")
    @classmethod
    def _note_a_credential(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("input"), dict):
            if scrub_data(data["input"]) != data["input"]:
                return {**data, "scrubbed": True}
        return data


class HoldWhy(StrEnum):
    """Why a hold was answered as it was: data the hook words for the agent
    (surfaces/render/words/hold_answers.py), with the answer's fields each names."""

    ALLOWED = "allowed"
    """Nothing in the call needs a person."""
    APPROVED = "approved"
    """A person approved it (`by`, `approval_id`)."""
    APPROVED_LATE = "approved_late"
    """A person approved it after the hook that asked gave up; this identical call uses it, once."""
    APPROVED_BY_YOLO = "approved_by_yolo"
    """yolo mode approved it (`by` says whose switch)."""
    DECLINED = "declined"
    """A person declined it (`by`, and their `note`)."""
    WITHDRAWN = "withdrawn"
    """The approval was withdrawn or could not be asked (`by`, `note`)."""
    EXPIRED = "expired"
    """The approval expired (`note`)."""
    UNANSWERED = "unanswered"
    """Nobody answered within the wait; approval `approval_id` stays open."""
    NOT_WORKING = "not_working"
    """Job `job` is not working now (it is in `phase`): it answers no holds."""
    SHIP_REQUESTED = "ship_requested"
    """A person approved a plain push to `branch` (`by`): codedesk asks for the push of the
    job's commits once the job integrates; the call itself does not run."""
    BRANCH_PUSH_REQUESTED = "branch_push_requested"
    """A person approved a plain push to `branch` (`by`), not the default: codedesk pushes `sha`
    there when the agent's run ends, never forced; the call itself does not run."""


class AgentWorked(Payload):
    """The agent kept working beside a waiting hold for `seconds`: that time counts as work."""

    seconds: float
    signs: list[str] = []
    """What showed the work (cpu, processes, egress, output), for a person reading the history."""


class HoldAnswer(Payload):
    """May the call run, and why: the hook words `why` and its fields for the agent.

    `reason` is set only where words are given already (the hold channel's own refusals, and
    every answer of a job of an earlier version): an answer without `why` shows it as it is.
    """

    verdict: HoldVerdict
    reason: ScrubbedText = ""
    classes: list[str] = Field(default_factory=list)
    approval_id: str = ""
    by: str = ""
    why: HoldWhy | None = None
    note: ScrubbedText = ""
    """What the approval's answer or withdrawal said (`not today`)."""
    job: int = 0
    """The job asked, when `why` is `not_working`."""
    phase: JobPhase | None = None
    """The phase that job is in, when `why` is `not_working`."""
    branch: str = ""
    """The branch codedesk will push to, when `why` is `ship_requested` or
    `branch_push_requested`."""
    sha: str = ""
    """The commit codedesk will push, when `why` is `branch_push_requested`."""

    @property
    def may_run(self) -> bool:
        return self.verdict in (HoldVerdict.ALLOWED, HoldVerdict.APPROVED)


class HeldNote(StrEnum):
    """What the job has to say of a call the report lists (the surfaces word it)."""

    NONE = ""
    """Nothing of the job's own: `note` is what the person or the approval said, if anything."""
    APPROVED_LATE = "approved_late"
    """Approved after the agent's hook gave up waiting; no later identical call used it."""
    APPROVED_LATE_USED = "approved_late_used"
    """Approved after the agent's hook gave up; honoured once by the next identical call."""
    UNANSWERED_AT_END = "unanswered_at_end"
    """Nobody answered before the job ended (its approval was withdrawn then)."""
    LATE_APPROVAL_WITHDRAWN = "late_approval_withdrawn"
    """Approved after the agent's hook gave up, then withdrawn before any call used it."""


class HeldCall(Payload):
    """A call the report lists: declined, withdrawn, expired, never answered or approved late.

    `note_kind` is the job's word on it, `note` a person's or an approval's own; a call listed by
    a job of an earlier version has its whole note, worded by the job, in `note`.
    """

    tool: str
    summary: ScrubbedText
    verdict: HoldVerdict
    approval_id: str = ""
    note: ScrubbedText = ""
    note_kind: HeldNote = HeldNote.NONE
    summary_cut: int = 0
    """Characters cut from the end of `summary` to keep the entry within the host's
    `report_held_chars` (the report marks the cut: `… [N chars]`)."""


def held_summary(text: str, cap: int) -> tuple[str, int]:
    """A held call's summary within `cap` characters, and how many were cut from its end."""
    if len(text) <= cap:
        return text, 0
    return text[:cap], len(text) - cap


class ClassifyInput(Payload):
    tool: str
    input: ScrubbedData = Field(default_factory=dict)
    workspace: str
    hold_classes: list[str] = Field(default_factory=list)
    hold_tools: list[str] = Field(default_factory=list)
    scrubbed: bool = False
    """The call's input held a credential (`HoldRequest.scrubbed`)."""


class Classification(Payload):
    """Why a call must wait for a person; empty `classes` means it may run."""

    classes: list[str] = Field(default_factory=list)
    action: ScrubbedText = ""
