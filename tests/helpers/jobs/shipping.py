"""Shipping set-up shared by the tests that push, report and answer a push's approval: commits
in a clone, the refs of a bare origin, a slow origin, an owner's shipping client, a push as an
agent's hold step asks it."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from temporalio.client import Client, WorkflowHandle

from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, Principal
from desk.payloads.ship_payloads import PushResult
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.ship_client import ShippingClient
from tests.helpers.repos import git
from tests.helpers.waiting import PATIENCE, awaited, until
from workers.desk_handle import configure_desk
from workflows.shipping.ship import Ship

REPO = "acme/api"
TOKEN = "s3cr3tT0k3nXYZ"


def commit(clone: Path, name: str, text: str, subject: str) -> str:
    """Commit `name` with `text` in the clone; the new HEAD."""
    path = clone / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    git(clone, "add", "-A")
    git(clone, "commit", "--quiet", "-m", subject)
    return git(clone, "rev-parse", "HEAD")


def refs(bare: Path) -> dict[str, str]:
    """Every ref of a bare origin and where it points, plus where HEAD points."""
    found = dict(
        line.split(" ", 1)[::-1]
        for line in git(bare, "for-each-ref", "--format=%(objectname) %(refname)").splitlines()
    )
    found["HEAD"] = git(bare, "symbolic-ref", "HEAD")
    return found


async def owner_client(
    desk: DeskClient, settings: DeskSettings, *owner_repos: str
) -> ShippingClient:
    """A ShippingClient of a desk whose host policy exempts `owner_repos`: the desk is told so
    as a worker started with CODEDESK_OWNER_REPOS tells it; the client's own settings name none."""
    await configure_desk(desk.client, settings.model_copy(update={"owner_repos": [*owner_repos]}))
    return ShippingClient(desk.client, settings)


def slow_origin(bare: Path, marker: Path, gate: Path, seconds: float = PATIENCE) -> None:
    """The origin's post-receive hook records each push, then waits for `gate` (or `seconds`).

    The refs are updated before post-receive runs and `git push` waits for it, so the push is
    on the remote while the activity that pushed it is still running.
    """
    hook = bare / "hooks" / "post-receive"
    hook.write_text(
        "#!/bin/sh\n"
        f"echo pushed >> '{marker}'\n"
        f"for i in $(seq {int(seconds * 10)}); do [ -e '{gate}' ] && exit 0; sleep 0.1; done\n"
    )
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)


async def answer(client: Client, ident: str, decision: Decision, who: str) -> None:
    """Answer the approval once it is open (its workflow may still be starting)."""
    approvals = ApprovalsClient(client)

    async def answered() -> bool:
        result, by_signal = await approvals.answer(ident, decision, Principal(id=who))
        return result.counted or by_signal  # a signal is durable: it counts when a worker runs

    await until(answered, f"approval {ident} to take the answer")


async def withdraw(client: Client, ident: str) -> None:
    approvals = ApprovalsClient(client)
    await until(lambda: approval_started(client, ident), f"approval {ident} to open")
    await approvals.withdraw(ident, "changed my mind", "test")


async def approval_started(client: Client, ident: str) -> bool:
    try:
        await client.get_workflow_handle(ident).describe()
    except Exception:
        return False
    return True


async def result_of(handle: WorkflowHandle[Ship, PushResult]) -> PushResult:
    return await awaited(handle.result(), "the push's result")


def push_call(command: str) -> str:
    return json.dumps({"tool": "Bash", "input": {"command": command}})


PLAIN = push_call("git push origin HEAD:main")
