"""A job's phase and outcome: plain enums, which a listing reads without pydantic.

`desk.payloads.jobs` carries them in its models; `codedesk jobs` (surfaces/clients/job_listing.py)
compares the search attributes' text with them, so each value is spelled here only.
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


class JobPhase(StrEnum):
    """Where a running job is; a closed job's phase is `done`."""

    STARTING = "starting"
    QUEUED = "queued"
    PREPARING = "preparing"
    WORKING = "working"
    INTEGRATING = "integrating"
    CLEANING = "cleaning"
    DONE = "done"
