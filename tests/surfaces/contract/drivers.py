"""How the contract suite drives each surface: show, press, and read a card's state."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Protocol

from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, Principal, SurfacePlace
from surfaces.clients.approval_client import ApprovalsClient
from tests.surfaces.fake_surface import FakeSurface

CODEDESK = Path(sys.executable).parent / "codedesk"


STRANGER = Principal(id="someone:else", name="a stranger")


class SurfaceDriver(Protocol):
    owner: Principal
    """Who may answer on this surface (the approvals' owner)."""
    stranger: Principal
    """Someone on this surface who may not answer."""

    def place(self) -> SurfacePlace | None:
        """Where approvals for this surface are shown (None: the surface lists them itself)."""
        ...

    async def shown(self, approval_id: str) -> bool:
        """Whether the card is shown and open, with its controls."""
        ...

    async def press(self, approval_id: str, decision: Decision, who: Principal) -> str:
        """Answer as `who` the way a person does on this surface; returns what they are told."""
        ...

    async def closed_as(self, approval_id: str) -> str | None:
        """The outcome the closed card shows, or None while it is open (or was never shown)."""
        ...


class FakeDriver:
    def __init__(self, surface: FakeSurface, queue: str, client: Client, owner: str) -> None:
        self.surface, self.queue, self.approvals = surface, queue, ApprovalsClient(client)
        self.owner, self.stranger = Principal(id=owner), STRANGER

    def place(self) -> SurfacePlace | None:
        return SurfacePlace(queue=self.queue, channel="c1")

    async def shown(self, approval_id: str) -> bool:
        card = self.surface.cards.get(approval_id)
        return card is not None and card.open

    async def press(self, approval_id: str, decision: Decision, who: Principal) -> str:
        result, _ = await self.approvals.answer(approval_id, decision, who)
        return "counted" if result.counted else result.reason

    async def closed_as(self, approval_id: str) -> str | None:
        card = self.surface.cards.get(approval_id)
        return card.footer.split(" ")[0] if card is not None and not card.open else None


class CliDriver:
    """The terminal: `codedesk approvals --json` shows cards; approve/decline answer them."""

    def __init__(self, settings: DeskSettings, client: Client) -> None:
        self.settings, self.client = settings, client
        self.seen: set[str] = set()
        self.owner, self.stranger = Principal(id=settings.owner), STRANGER

    def place(self) -> SurfacePlace | None:
        return None

    def _env(self, who: Principal | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CODEDESK_")}
        env.update(
            CODEDESK_HOME=str(self.settings.home),
            CODEDESK_TEMPORAL_ADDRESS=self.settings.temporal_address,
            CODEDESK_NAMESPACE=self.settings.namespace,
            CODEDESK_TASK_QUEUE=self.settings.task_queue,
            CODEDESK_OWNER_ID=(who.id if who else self.settings.owner),
        )
        return env

    async def _run(
        self, *args: str, who: Principal | None = None
    ) -> subprocess.CompletedProcess[str]:
        return await asyncio.to_thread(
            subprocess.run,
            [str(CODEDESK), *args],
            env=self._env(who),
            capture_output=True,
            text=True,
            timeout=60,
        )

    async def shown(self, approval_id: str) -> bool:
        done = await self._run("approvals", "--json")
        assert done.returncode == 0, done.stdout + done.stderr
        listed = {item["approval_id"] for item in json.loads(done.stdout)}
        if approval_id in listed:
            self.seen.add(approval_id)
        return approval_id in listed

    async def press(self, approval_id: str, decision: Decision, who: Principal) -> str:
        done = await self._run(decision.value, approval_id, who=who)
        return "counted" if done.returncode == 0 else done.stdout + done.stderr

    async def closed_as(self, approval_id: str) -> str | None:
        if approval_id not in self.seen or await self.shown(approval_id):
            return None
        outcome = await self.client.get_workflow_handle(approval_id).result()
        return str(outcome["kind"]) if isinstance(outcome, dict) else str(outcome.kind.value)
