"""A desk whose agents run sandboxed, with an owner's secrets and a folder outside for them to reach
for, and the hostile agent's command and victim approval."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from activities.sandbox.bubblewrap import BWRAP, choose_sandbox
from desk.config.settings import DeskSettings
from desk.holds.approvals import ApprovalRequest, approval_id
from surfaces.clients.desk_client import DeskClient
from tests.helpers.repos import make_origin
from workers.desk_handle import configure_desk
from workers.worker import build_worker
from workflows.shipping.approval import Approval

REPO = "acme/api"


SECRET = "owner-secret-7f3a9c"


HOSTILE_AGENT = Path(__file__).parents[1] / "programs" / "hostile_agent.py"


needs_bwrap = pytest.mark.skipif(
    choose_sandbox("auto").mode != BWRAP, reason="bubblewrap does not work on this host"
)


@dataclass
class Sandboxed:
    desk: DeskClient
    settings: DeskSettings
    clone: Path
    origin: Path
    outside: Path
    secrets: list[Path]


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside /tmp (the sandbox hides /tmp anyway, so that would prove nothing)."""
    base = Path(tempfile.mkdtemp(prefix="codedesk-sandbox-", dir="/var/tmp"))
    yield base
    shutil.rmtree(base, ignore_errors=True)


async def sandboxed_desk(
    client: Client,
    settings: DeskSettings,
    outside: Path,
    monkeypatch: pytest.MonkeyPatch,
    network: bool,
    mode: str = BWRAP,
    egress: list[str] | None = None,
) -> AsyncIterator[Sandboxed]:
    owner = outside / "owner"
    (owner / ".ssh").mkdir(parents=True)
    (owner / ".ssh" / "id_ed25519").write_text(f"{SECRET} ssh key\n")
    monkeypatch.setenv("HOME", str(owner))
    home = outside / "codedesk"
    home.mkdir()
    (home / "codedesk.toml").write_text(f'discord_token = "{SECRET}"\n')
    local = settings.model_copy(
        update={
            "home": home,
            "shelf": home / "shelf",
            "sandbox": mode,
            "sandbox_network": network,
            "sandbox_egress": egress or ["*"],
        }
    )
    origin = make_origin(outside / "origins" / "acme" / "api.git")
    async with build_worker(client, local):
        await configure_desk(client, local)
        desk = DeskClient(client, local)
        info = await desk.add_repo(REPO, str(origin))
        secrets = [owner / ".ssh" / "id_ed25519", home / "codedesk.toml"]
        yield Sandboxed(desk, local, Path(info.path), origin, outside, secrets)


async def open_victim_approval(box: Sandboxed) -> str:
    """An approval some other job waits on, open for the hostile agent to try to answer."""
    ask = ApprovalRequest(
        tool="Bash",
        input={"command": "git push origin main"},
        action="Run: git push origin main",
        scope=f"victim-{uuid.uuid4().hex[:8]}",
        owners=box.settings.owner_ids,
        origin="cli",
        classes=["push"],
    )
    ident = approval_id(ask.scope, ask.tool, ask.input)
    await box.desk.client.start_workflow(
        Approval.run, ask, id=ident, task_queue=box.settings.task_queue
    )
    return ident


def hostile_command(box: Sandboxed, ident: str, **extra: Any) -> str:
    plan = {
        "outside": str(box.outside / "written-from-inside"),
        "secrets": [str(path) for path in box.secrets],
        "clone": str(box.clone),
        "origin": str(box.origin),
        "approval": ident,
        "address": box.settings.temporal_address,
        "namespace": box.settings.namespace,
        "owner": box.settings.owner,
        **extra,
    }
    return f"{sys.executable} {HOSTILE_AGENT} {shlex.quote(json.dumps(plan))}"
