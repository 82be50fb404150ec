"""Custom ids of approval buttons: they carry the approval, so a press outlives the bot.

A custom id holds at most 100 characters. `codedesk:approve:<approval id>` carries the id
itself when it fits (job approvals always do: `approval-job-12-<16 hex>`); a longer one (a
push of a repository with a long name) carries `#<32 hex>`, the start of the SHA-256 of the
id, which the bot resolves by listing Approval workflows (Temporal visibility) and hashing
their ids. Either way the button needs nothing the bot kept in memory: a press after a
restart reaches the same approval. The template is matched in full (discord.py uses
`fullmatch`), so no other custom id can pass for one of these.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from temporalio.client import Client

from desk.holds.approvals import APPROVAL_ID_PREFIX, Decision

CUSTOM_ID_CHARS = 100
PREFIX = "codedesk"
_HEAD = len(f"{PREFIX}:decline:")
_ID_CHARS = r"[A-Za-z0-9._/:@-]"
_ID_ROOM = CUSTOM_ID_CHARS - _HEAD - len(APPROVAL_ID_PREFIX)
TEMPLATE = re.compile(
    rf"{PREFIX}:(?P<decision>approve|decline):"
    rf"(?:(?P<id>{APPROVAL_ID_PREFIX}{_ID_CHARS}{{1,{_ID_ROOM}}})|#(?P<digest>[0-9a-f]{{32}}))"
)


@dataclass(frozen=True)
class CardKey:
    """What a button carries: the approval's id, or the digest of an id too long to carry."""

    approval_id: str = ""
    digest: str = ""

    @classmethod
    def of(cls, approval_id: str) -> CardKey:
        key = cls(approval_id=approval_id)
        if TEMPLATE.fullmatch(key.custom_id(Decision.DECLINE)):
            return key
        return cls(digest=digest_of(approval_id))

    def custom_id(self, decision: Decision) -> str:
        ref = self.approval_id or f"#{self.digest}"
        return f"{PREFIX}:{decision.value}:{ref}"

    def matches(self, approval_id: str) -> bool:
        return approval_id == self.approval_id or (
            bool(self.digest) and digest_of(approval_id) == self.digest
        )


def digest_of(approval_id: str) -> str:
    return hashlib.sha256(approval_id.encode()).hexdigest()[:32]


def parse(custom_id: str) -> tuple[Decision, CardKey] | None:
    """The decision and key of one of our custom ids, or None for anything else."""
    found = TEMPLATE.fullmatch(custom_id)
    if found is None:
        return None
    key = CardKey(approval_id=found["id"] or "", digest=found["digest"] or "")
    return Decision(found["decision"]), key


async def resolve(key: CardKey, client: Client) -> str | None:
    """The approval a key names: its id, or the Approval workflow whose id has that digest.

    Running approvals are searched first (the ones a press can still answer), then settled
    ones, so a press on a stale card can still be told how it ended.
    """
    if key.approval_id:
        return key.approval_id
    for query in (
        "WorkflowType = 'Approval' AND ExecutionStatus = 'Running'",
        "WorkflowType = 'Approval' AND ExecutionStatus != 'Running'",
    ):
        async for item in client.list_workflows(query, limit=1000):
            if key.matches(item.id):
                return item.id
    return None
