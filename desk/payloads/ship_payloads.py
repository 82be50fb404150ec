"""Shipping payloads: the change report (the receipt a push needs) and the push itself."""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field

from desk.errors import ShaError
from desk.holds.approvals import AgentShipAsk, SurfacePlace
from desk.payloads.jobs import CommitInfo
from desk.records.base import Payload, ScrubbedText

FULL_SHA = re.compile(r"[0-9a-f]{40}")


def full_sha(text: str) -> str:
    """The SHA in lower case; a short or malformed one is refused (name the full one)."""
    sha = text.strip().lower()
    if not FULL_SHA.fullmatch(sha):
        raise ShaError(
            f"{text!r} is not a full commit SHA: name all 40 hex digits, as `codedesk report` "
            "prints them (a short SHA could name another commit by the time it is pushed)."
        )
    return sha


class FileChange(Payload):
    path: ScrubbedText
    added: int = 0
    deleted: int = 0


class ChangeReport(Payload):
    """What a push of `head` would ship: the receipt `codedesk push` needs."""

    repo: str
    head: str
    default_branch: str
    destination: ScrubbedText
    """The credential-free push URL."""
    remote_tip: str
    """Where the remote's default branch was when the report was made."""
    commits: list[CommitInfo] = Field(default_factory=list)
    commits_omitted: int = 0
    files: list[FileChange] = Field(default_factory=list)
    files_omitted: int = 0
    made_at: datetime | None = None


class ReportInput(Payload):
    repo: str
    max_commits: int = 50
    max_files: int = 100
    host: str = ""
    """The host that holds the clone, for a `Repo` entity that does not know it yet."""


class PullRequestPlan(Payload):
    """What an owner approves when a push ships as a pull request (made by
    `desk.decisions.pull_request_plans`)."""

    branch: str
    """The new branch on origin, at exactly the reported SHA."""
    base: str
    """The branch the pull request asks to merge into: origin's default branch."""
    title: ScrubbedText
    body: ScrubbedText


class PushInput(Payload):
    receipt: ChangeReport
    pull_request: PullRequestPlan | None = None
    """Ship as a pull request: push the SHA to the plan's new branch and open it there."""


class PushStatus(StrEnum):
    PUSHED = "pushed"
    REFUSED = "refused"
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"
    FAILED = "failed"


class PushResult(Payload):
    """What became of a push request."""

    status: PushStatus
    repo: str
    sha: str
    branch: str = ""
    destination: ScrubbedText = ""
    reason: ScrubbedText = ""
    already: bool = False
    """The remote was at the SHA already (a retried push after a crash)."""
    approval_id: str = ""
    approved_by: str = ""
    pull_request_url: str = ""
    """The pull request opened (or found, after a retry) for a push shipped as one."""


class ShipInput(Payload):
    """A push request: the receipt, who asks, and whether it asks to wait for an owner anyway.

    Whether the repository skips the owner's approval and who may approve are the desk's host
    policy, read by the `Ship` itself; `owner_repo` and `owners` are read only by pushes
    started before host policy (an older client's claim).
    """

    receipt: ChangeReport
    owner_repo: bool = False
    owners: list[str] = Field(default_factory=list)
    hold: bool = False
    """Wait for an owner's approval even where the host exempts the repository (stricter)."""
    requester: str = ""
    place: SurfacePlace | None = None
    """Where a surface shows the push's approval card (a `/push` from Discord)."""
    agent_ship: AgentShipAsk | None = None
    """The agent's approved push call this push carries out (its card links it)."""
    pull_request: bool = False
    """Ship as a pull request (`codedesk push --pr`): the SHA on a new branch, a pull request
    of it onto the default branch, behind the same approval."""
    host: str = ""
    """The host that holds the clone, whose HEAD is read before anyone is asked ("": the
    shared queue's worker, a desk of one host)."""


class HeadQuery(Payload):
    """Which clone's HEAD a `Ship` reads before it asks for an approval."""

    repo: str


class CloneHead(Payload):
    """A clone's HEAD as its host read it."""

    head: str


class ShipAsked(Payload):
    """What a `Ship` says once it asked for its approval or pushes, or ended before either."""

    result: PushResult | None = None
    """Set when the Ship ended without asking anyone (the SHA is not the clone's HEAD)."""


class PushSuperseded(Payload):
    """The `Repo` entity tells a waiting `Ship` that the clone moved on past its SHA."""

    head: str
    """The clone's HEAD now."""
    reason: ScrubbedText = ""


class PushRequest(Payload):
    """A `Ship` asks its repository's `Repo` entity to push, under the clone's lock."""

    ship_workflow_id: str
    receipt: ChangeReport
    pull_request: PullRequestPlan | None = None


PUSH_TOOL = "git push"
"""The tool name a push approval's card shows."""

PULL_REQUEST_TOOL = "pull request"
"""The tool name the card of a push shipped as a pull request shows."""

PUSH_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "sha": {"type": "string", "title": "Commit (full SHA)"},
        "branch": {"type": "string", "title": "Default branch"},
        "destination": {"type": "string", "title": "Push destination"},
        "commits": {"type": "integer", "title": "Commits"},
        "repo": {"type": "string", "title": "Repository"},
        "pull_request_branch": {"type": "string", "title": "New branch"},
        "base": {"type": "string", "title": "Pull request onto"},
        "title": {"type": "string", "title": "Pull request title"},
    },
}
"""The push card's schema: it names the full SHA, the branch and the destination first."""


def push_call(receipt: ChangeReport, pull_request: PullRequestPlan | None = None) -> dict[str, Any]:
    """The push as an approval's input: what a person approves, field by field; a pull
    request's card names its new branch, its base and its title too."""
    call: dict[str, Any] = {
        "sha": receipt.head,
        "branch": receipt.default_branch,
        "destination": receipt.destination,
        "commits": len(receipt.commits) + receipt.commits_omitted,
        "repo": receipt.repo,
    }
    if pull_request is not None:
        call |= {
            "pull_request_branch": pull_request.branch,
            "base": pull_request.base,
            "title": pull_request.title,
        }
    return call


def ship_tool(pull_request: PullRequestPlan | None) -> str:
    """The tool name of a ship's approval (and of its id)."""
    return PULL_REQUEST_TOOL if pull_request is not None else PUSH_TOOL
