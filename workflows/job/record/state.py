"""A coding job's state, in one place: what it was asked, where it is, its clock and its holds."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.holds.approvals import (
        AgentShipAsk,
        ApprovalOutcome,
        HeldCall,
        HoldAnswer,
        Principal,
    )
    from desk.payloads.conversation.attempt_payloads import PickInput
    from desk.payloads.conversation.review_payloads import ReviewAnswer
    from desk.payloads.conversation.session_payloads import Continuation
    from desk.payloads.jobs import IntegrationResult, JobInput, JobStatus
    from desk.payloads.message_payloads import JobMessage
    from desk.policy.modes import JobModes
    from desk.usage.tally import Usage

from workflows.job.record.clock import WorkClock


@dataclass
class JobState:
    """Everything `CodingJob` and its parts (holds, modes, slot, admission) remember.

    The workflow's parts read and change this one object (`self.state`); none keeps state of
    its own. `status` is what the `current` query answers.
    """

    job: JobInput
    status: JobStatus
    clock: WorkClock
    modes: JobModes
    """What the job's scopes say now, as the desk last signalled."""
    admitted: bool
    """False while the job waits in its desk's queue for `admit`."""
    integration: IntegrationResult | None = None
    """The `Repo` entity's answer to the job's integration request."""
    slot_given_back: asyncio.Task[None] | None = None
    """The `job_ended` signal to the desk, sent once."""
    session_keep: asyncio.Task[datetime | None] | None = None
    """The start of the `SessionKeep` of the agent's session, begun beside the integration;
    what it gives is the report's `session_kept_until`."""
    spent: Usage | None = None
    """What the job's agent has spent in all its runs so far (None: no run has ended)."""
    spend_step: Decimal | None = None
    """The job's spend limit as it started: what a budget pause's "go on" adds."""
    finish_by: Principal | None = None
    """Who answered the budget card waiting now with `finish` (None: nobody yet)."""
    go_on_by: Principal | None = None
    """Who let the agent go on at its last budget card."""

    # Holds
    waiting_holds: int = 0
    """How many `hold` updates wait for a person now (the clock stands still meanwhile)."""
    held_calls: list[HeldCall] = field(default_factory=list)
    """Held calls for the report: declined, withdrawn, unanswered, approved late."""
    yolo_approved: list[HeldCall] = field(default_factory=list)
    """Held calls yolo mode approved without a card."""
    approvals: dict[str, asyncio.Task[ApprovalOutcome]] = field(default_factory=dict)
    """Each asked approval's child workflow, by approval id."""
    hold_waiters: dict[str, int] = field(default_factory=dict)
    """How many holds wait on each approval now."""
    late_approvals: dict[str, ApprovalOutcome] = field(default_factory=dict)
    """Approvals approved when no hold waited on them, not yet used by an identical call."""
    withdrawn_calls: dict[str, str] = field(default_factory=dict)
    """Calls a person withdrew, by approval id, with the withdrawal's note: never held again
    (an identical call is refused as withdrawn, without a card)."""
    job_withdrew: set[str] = field(default_factory=set)
    """Approvals the job withdrew itself (yolo released them, or the job ended): no person
    withdrew those calls."""
    held_actions: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Each approval's tool and one-line action, for the report."""
    approval_rounds: dict[str, int] = field(default_factory=dict)
    """How many times each approval id was asked (a settled one is asked anew)."""
    held_entries: dict[tuple[str, int], int] = field(default_factory=dict)
    """Where each asked approval is listed in `held_calls`: one entry per call."""
    resuming_approval: str = ""
    """The approval a suspended agent's deferred call waited for: the resumed hook's identical
    call gets its settled answer, once."""
    told_answer: tuple[str, HoldAnswer] | None = None
    """The call a CLI that cannot defer (codex) was ended for, and its settled answer: the
    resumed session reads it as its prompt."""
    ship_asks: dict[str, AgentShipAsk] = field(default_factory=dict)
    """The agent's approved plain pushes to the default branch, by approval id: codedesk asks
    for the push of the integrated commit once the job integrates."""

    # Messages (the conversation itself is `status.messages`)
    agent_runs: int = 0
    """How many runs of its agent the job has started (a suspension's resume, a run for
    messages and a run started again on its host count one each)."""
    agent_running: bool = False
    """Whether run `agent_runs` of the agent's step is going on now."""
    inbox_waiting: int = 0
    """How many `agent_inbox` Updates wait for a message now."""
    inbox_taken: int = 0
    """The last message an `agent_inbox` answer gave the running agent's step."""
    inbox_handed: int = 0
    """The last message the running agent's live seam has (the step said so)."""
    agent_done: bool = False
    """The agent's work is over (no message will run it again): `say` is refused, but in
    review, where a message asks for a revision."""
    continuing: Continuation | None = None
    """The finished job whose session the agent's first run resumes (a continuation), once the
    job took its message; None: none."""

    # Review
    review_answer: ReviewAnswer | None = None
    """The reviewer's `integrate` or `discard` of the round waiting now (first answer wins)."""
    review_owners: list[str] = field(default_factory=list)
    """The host's owners as the round waiting now opened (the desk's host policy): they may
    answer it, as the owners the job recorded may."""

    # Attempts (issue 48)
    pending_verdict: ReviewAnswer | None = None
    """An attempt: its job's pick, come while its agent worked; it answers its next round."""
    review_after_pick: bool = False
    """An attempt whose requester or owner asked for a review: once picked, its work waits for
    an ordinary review instead of integrating."""
    picked_for_review: bool = False
    """An attempt picked, whose work now waits for an ordinary review: people answer it."""
    pick: PickInput | None = None
    """A job of several attempts: the person's pick (an empty label: every attempt discarded)."""

    def undelivered(self) -> list[JobMessage]:
        """The messages that have not reached the agent, oldest first."""
        return [message for message in self.status.messages if message.delivered is None]

    @classmethod
    def of(cls, job: JobInput) -> JobState:
        """The state of a new job."""
        return cls(
            job=job,
            status=JobStatus(
                number=job.number,
                repo=job.repo,
                task=job.task,
                requester=job.requester,
                host=job.host,
            ),
            clock=WorkClock(
                budget=job.budget, ceiling=job.long_running_max, check=job.long_running_check
            ),
            modes=job.modes,
            admitted=job.admitted,
            spend_step=job.spend_limit,
        )
