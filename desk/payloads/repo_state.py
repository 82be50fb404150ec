"""The `Repo` entity's state: integration queue, receipts of change reports, the running push."""

from __future__ import annotations

from pydantic import Field

from desk.payloads.jobs import IntegrationRequest
from desk.payloads.ship_payloads import ChangeReport, PushRequest
from desk.records.base import Payload
from desk.records.repo_setup import RepoSetup

RECEIPTS_KEPT = 20
"""Change reports a repository keeps; a push needs the receipt of its exact SHA."""


class RepoState(Payload):
    """Carried across continue-as-new, so receipts and queued integrations survive restarts."""

    repo: str
    host: str = ""
    """The host that holds the clone: integrations, reports and pushes run on its queue."""
    queue: list[IntegrationRequest] = Field(default_factory=list)
    integrations: int = 0
    receipts: dict[str, ChangeReport] = Field(default_factory=dict)
    pushing: PushRequest | None = None
    pushes: int = 0
    superseded: list[str] = Field(default_factory=list)
    """Receipts whose pushes were told the clone moved on past them (each is told once)."""
    setup: RepoSetup = Field(default_factory=RepoSetup)
    """The owner's worktree set-up and check of this repository (`codedesk repo set`)."""

    def stale_receipts(self, head: str) -> list[str]:
        """Receipts of SHAs other than `head` not yet told so, now marked told; the marks of
        forgotten receipts are dropped, so the list stays as short as the receipts."""
        stale = [sha for sha in self.receipts if sha != head and sha not in self.superseded]
        self.superseded = [sha for sha in [*self.superseded, *stale] if sha in self.receipts]
        return stale

    def keep_receipt(self, report: ChangeReport) -> None:
        """Keep `report` as the receipt of its SHA, forgetting the oldest past RECEIPTS_KEPT."""
        self.receipts.pop(report.head, None)
        self.receipts[report.head] = report
        while len(self.receipts) > RECEIPTS_KEPT:
            self.receipts.pop(next(iter(self.receipts)))


class ReceiptQuery(Payload):
    sha: str
