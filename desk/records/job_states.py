"""A job's phase and outcome: plain enums, which a listing reads without pydantic.

`desk.payloads.jobs` carries them in its models; `codedesk jobs`
(surfaces/clients/listings/job_listing.py) compares the search attributes' text with them, so
each value is spelled here only.
"""

from __future__ import annotations

from enum import StrEnum


class JobOutcome(StrEnum):
    """How a coding job ended."""

    INTEGRATED = "integrated"
    NOTHING = "nothing"
    CONFLICT = "conflict"
    REFUSED = "refused"
    FAILED = "failed"
    TIMED_OUT = "timed_out"
    CANCELLED = "cancelled"
    DISCARDED = "discarded"
    """A reviewer discarded the work: its branch and worktree were removed."""


class JobPhase(StrEnum):
    """Where a running job is; a closed job's phase is `done`."""

    STARTING = "starting"
    QUEUED = "queued"
    PREPARING = "preparing"
    WORKING = "working"
    SUSPENDED = "suspended"
    """The agent is suspended: no process, no slot, waiting for an approval of a held call."""
    BUDGET_PAUSED = "budget_paused"
    """The agent reached its budget: no process, no slot, waiting for a person's answer on the
    budget card (go on, finish here, stop)."""
    ATTEMPTS = "attempts"
    """A job of several attempts: its attempts (jobs of their own) work; it runs nothing."""
    REVIEW = "review"
    """The agent's work (and the check) wait for a person to integrate, revise or discard it:
    no process, no slot, no deadline."""
    INTEGRATING = "integrating"
    CLEANING = "cleaning"
    DONE = "done"


class ReasonKind(StrEnum):
    """Why a job ended as it did, in the job's own terms (a report's `reason_kind`).

    surfaces/render/layout/report_reasons.py words it with the report's fields each value names. A
    report without one (of an earlier version, or whose words a step gave: an activity's error,
    the agent's own account, the repository's answer) says its `reason` as it is.
    """

    CANCELLED_QUEUED = "cancelled_queued"
    """Cancelled while it waited for a slot: it never ran."""
    CANCELLED_BEFORE_AGENT = "cancelled_before_agent"
    """Cancelled while its worktree was cut, before the agent ran."""
    CANCELLED = "cancelled"
    """Cancelled while the agent ran."""
    ACTIVITY_FAILED = "activity_failed"
    """The agent's activity failed; `reason` is its error."""
    OUT_OF_TIME = "out_of_time"
    """The agent ran past `budget` and was stopped (long-running mode may have extended it by
    `extended_by`, up to `budget_ceiling`)."""
    EXITED = "exited"
    """The agent exited with `exit_code`, not 0."""
    KILLED = "killed"
    """The agent was killed by signal `-exit_code`."""
    INTEGRATION_WITHDRAWN = "integration_withdrawn"
    """Cancelled while it waited to integrate; the branch is kept."""
    INTEGRATION_WAITED = "integration_waited"
    """The repository did not integrate within `integration_wait`."""
    NO_ATTEMPT_READY = "no_attempt_ready"
    """Every attempt of the job ended before its work came to the pick (see each attempt's
    report)."""
    ATTEMPT_PICKED = "attempt_picked"
    """The job's `attempts.picked` attempt was picked; the outcome is its integration's."""
