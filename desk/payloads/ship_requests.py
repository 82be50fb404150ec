"""An agent's approved push that codedesk ships itself: the job's request and what came of it."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from desk.holds.approvals import AgentShipAsk, SurfacePlace
from desk.records.base import Payload, ScrubbedText


class ShipRequestInput(Payload):
    """After integrating, a job asks for the push of exactly its integrated SHA."""

    repo: str
    sha: str
    """The clone's HEAD the job's integration left: the only commit this request may push."""
    asks: list[AgentShipAsk]
    """The agent's approved push calls this request carries out (identical calls share one)."""
    requester: str = ""
    place: SurfacePlace | None = None
    host: str = ""
    max_commits: int = 50
    max_files: int = 100


class ShipRequestStatus(StrEnum):
    REQUESTED = "requested"
    """The push of the SHA waits for an owner's approval in its `Ship` (or ran already)."""
    NOT_REQUESTED = "not_requested"
    """No push was asked for (`reason` says why: the clone moved on, nothing to ship, ...)."""
    NOT_INTEGRATED = "not_integrated"
    """The job did not integrate, so there is no commit to ship."""


class ShipOutcome(Payload):
    """How the `Ship` of a requested push ended: read from it when the job's report is shown,
    since the job ends before anyone answers the push's approval."""

    status: str
    """The push's `PushStatus`: pushed, declined, withdrawn, refused or failed."""
    reason: ScrubbedText = ""
    approved_by: str = ""
    destination: ScrubbedText = ""
    pull_request_url: str = ""


class ShipRequestResult(Payload):
    """What became of the agent's approved pushes to a default branch, for the job's report."""

    status: ShipRequestStatus
    branch: str
    sha: str = ""
    push_workflow_id: str = ""
    push_approval_id: str = ""
    """The approval of the push of `sha` that an owner answers."""
    agent_approvals: list[str] = Field(default_factory=list)
    """The approvals of the agent's calls it carries out."""
    reason: ScrubbedText = ""
    outcome: ShipOutcome | None = None
    """The push's end, once its `Ship` ended (None: it has not, or the report is as the job
    left it): filled in by the surface that shows the report."""


class BranchPushInput(Payload):
    """An agent's approved plain push to a branch other than the default: exactly this SHA."""

    repo: str
    sha: str
    """The job's HEAD when the agent asked, as its card showed it."""
    branch: str
    approval_id: str
    approved_by: str = ""


class BranchPushStatus(StrEnum):
    PUSHED = "pushed"
    REFUSED = "refused"
    """Nothing was pushed (`reason` says why: not a fast-forward, the commit is gone, ...)."""
    NOT_PUSHED = "not_pushed"
    """The job was cancelled before codedesk pushed."""


class BranchPushResult(Payload):
    """What became of an agent's approved push to a branch, for the job's report."""

    status: BranchPushStatus
    branch: str
    sha: str
    approval_id: str = ""
    approved_by: str = ""
    already: bool = False
    """The origin had the branch at the SHA already (a retry after a crash)."""
    reason: ScrubbedText = ""
