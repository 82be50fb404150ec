"""`codedesk report` and `codedesk push` as a person runs them, against a temporary bare origin."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType

from desk.config.settings import DeskSettings
from desk.names import push_workflow_id
from desk.payloads.ship_payloads import PushResult
from surfaces.clients.desk_client import DeskClient
from tests.helpers.cli_helpers import Cli, assert_refused, run_cli, settings_env, shown
from tests.helpers.jobs.shipping import TOKEN, commit, refs
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, until
from workers.desk_handle import configure_desk

REPO = "acme/api"


@pytest.fixture
def cli(settings: DeskSettings, tmp_path: Path) -> Cli:
    """The console script against this test's desk (the `desk` fixture hosts the worker)."""
    env = settings_env(settings)

    async def call(*args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return await run_cli({**env, **extra}, *args, cwd=tmp_path)

    return call


def approval_in(result: subprocess.CompletedProcess[str]) -> str:
    found = re.search(r"approve it: codedesk approve (approval-\S+)", result.stdout)
    assert found, shown(result)
    return found.group(1)


async def approval_open(cli: Cli, ident: str) -> None:
    async def listed() -> bool:
        shown_approvals = await cli("approvals", "--json")
        return ident in [item["approval_id"] for item in json.loads(shown_approvals.stdout)]

    await until(listed, f"{ident} in `codedesk approvals`")


async def test_report_prints_the_full_sha_and_the_push_command_or_json(
    cli: Cli, clone: Path, origin: Path
) -> None:
    remote_tip = git(origin, "rev-parse", "main")
    commit(clone, "a.txt", "one\ntwo\n", "add a")
    head = commit(clone, "README.md", "# new\n", "edit readme")
    made = await cli("report", REPO)
    assert made.returncode == 0, shown(made)
    text = made.stdout
    assert f"{REPO}: 2 commit(s) ahead of origin/main" in text, text
    assert f"HEAD: {head}" in text
    assert f"branch: main (remote at {remote_tip[:12]})" in text
    assert f"destination: {origin}" in text
    assert f"{head[:12]} edit readme" in text
    assert "+2 -0 a.txt" in text and "+1 -1 README.md" in text
    assert f"To ship it: codedesk push {REPO} {head}" in text

    as_json = await cli("report", REPO, "--json")
    assert as_json.returncode == 0, shown(as_json)
    document = json.loads(as_json.stdout)
    assert document["head"] == head
    assert document["default_branch"] == "main"
    assert document["destination"] == str(origin)
    assert document["remote_tip"] == remote_tip
    assert [c["subject"] for c in document["commits"]] == ["add a", "edit readme"]
    assert {f["path"]: (f["added"], f["deleted"]) for f in document["files"]} == {
        "a.txt": (2, 0),
        "README.md": (1, 1),
    }


async def test_report_refusals_are_one_line(cli: Cli, clone: Path) -> None:
    assert_refused(await cli("report", REPO), "Nothing to ship")
    commit(clone, "a.txt", "one\n", "add a")
    (clone / "stray.txt").write_text("x")
    assert_refused(await cli("report", REPO), "uncommitted changes", "stray.txt")
    (clone / "stray.txt").unlink()
    git(clone, "remote", "set-url", "origin", f"https://me:{TOKEN}@127.0.0.1:1/x.git")
    reason = assert_refused(await cli("report", REPO), "user info")
    assert TOKEN not in reason


async def test_push_prints_the_approval_then_approve_ships(
    cli: Cli, desk: DeskClient, clone: Path, origin: Path
) -> None:
    head = commit(clone, "a.txt", "one\n", "add a")
    assert (await cli("report", REPO)).returncode == 0
    asked = await cli("push", REPO, head)
    assert asked.returncode == 0, shown(asked)
    approval = approval_in(asked)
    assert f"The push of {head} waits for an owner's approval: {approval}" in asked.stdout
    assert f"Push workflow: {push_workflow_id(REPO, head)}" in asked.stdout
    assert git(origin, "rev-parse", "main") != head

    await approval_open(cli, approval)
    approved = await cli("approve", approval)
    assert approved.returncode == 0, shown(approved)
    assert f"{approval}: approved." in approved.stdout
    # What the approval led to, said by `approve` itself: the push is made within the wait.
    assert f"Pushed {head} to main at {origin}, approved by " in approved.stdout, shown(approved)
    handle = desk.client.get_workflow_handle(push_workflow_id(REPO, head), result_type=PushResult)
    result = await awaited(handle.result(), "the push's result")
    assert result.sha == head, result
    assert refs(origin) == {"refs/heads/main": head, "HEAD": "refs/heads/main"}


async def test_push_of_a_sha_that_is_not_head_is_refused_before_any_card(
    cli: Cli, desk: DeskClient, clone: Path, origin: Path
) -> None:
    """The clone moved on after the report: no approval opens for a push that could only be
    refused, and the refusal says where HEAD is and what to do."""
    before = refs(origin)
    reported = commit(clone, "a.txt", "one\n", "add a")
    assert (await cli("report", REPO)).returncode == 0
    moved = commit(clone, "b.txt", "two\n", "add b")
    asked = await cli("push", REPO, reported)
    assert asked.returncode == 1, shown(asked)
    said = f"Not pushed (refused): The clone of {REPO} is at {moved}, not {reported}"
    assert said in asked.stdout, shown(asked)
    assert f"run `codedesk report {REPO}` and push the SHA it names" in asked.stdout
    assert "approve" not in asked.stdout, shown(asked)
    handle = desk.client.get_workflow_handle(push_workflow_id(REPO, reported))
    events = [event.event_type for event in (await handle.fetch_history()).events]
    assert EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED not in events
    assert refs(origin) == before


async def test_approve_says_why_a_push_was_refused_once_approved(
    cli: Cli, clone: Path, origin: Path
) -> None:
    """HEAD moved while the card waited: approving it says the push was refused, and why."""
    before = refs(origin)
    head = commit(clone, "a.txt", "one\n", "add a")
    assert (await cli("report", REPO)).returncode == 0
    approval = approval_in(await cli("push", REPO, head))
    await approval_open(cli, approval)
    commit(clone, "b.txt", "two\n", "add b")
    approved = await cli("approve", approval)
    assert approved.returncode == 0, shown(approved)
    assert f"{approval}: approved." in approved.stdout
    assert f"Not pushed (refused): HEAD is no longer {head}" in approved.stdout, shown(approved)
    assert refs(origin) == before


async def test_approve_says_where_to_see_a_push_not_done_within_the_wait(
    cli: Cli, desk: DeskClient, clone: Path, origin: Path, tmp_path: Path
) -> None:
    """The origin takes the push only once a gate opens: `approve` does not wait for it past
    CODEDESK_OUTCOME_WAIT, and names the push's workflow instead."""
    gate = tmp_path / "origin-gate"
    hook = origin / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\nwhile [ ! -e {gate} ]; do sleep 0.05; done\ncat >/dev/null\n")
    hook.chmod(0o755)
    head = commit(clone, "a.txt", "one\n", "add a")
    assert (await cli("report", REPO)).returncode == 0
    approval = approval_in(await cli("push", REPO, head))
    await approval_open(cli, approval)
    approved = await cli("approve", approval, CODEDESK_OUTCOME_WAIT="1s")
    assert approved.returncode == 0, shown(approved)
    ident = push_workflow_id(REPO, head)
    assert f"The push goes on; its outcome will be in workflow {ident}" in approved.stdout
    gate.touch()
    handle = desk.client.get_workflow_handle(ident, result_type=PushResult)
    assert (await awaited(handle.result(), "the push's result")).sha == head
    assert git(origin, "rev-parse", "main") == head


async def test_push_of_a_repository_not_on_the_shelf_names_the_nearest_one(
    cli: Cli, clone: Path
) -> None:
    head = commit(clone, "a.txt", "one\n", "add a")
    assert (await cli("report", REPO)).returncode == 0
    reason = assert_refused(await cli("push", "acme/apj", head), "'acme/apj' is not on the shelf")
    assert f"did you mean {REPO}?" in reason and "no change report" not in reason, reason
    far = assert_refused(await cli("push", "zz/qqqq", head), "'zz/qqqq' is not on the shelf")
    assert "did you mean" not in far, far
    # On the shelf, but never reported: the receipt is what is missing.
    assert_refused(await cli("push", REPO, "b" * 40), "no change report", f"codedesk report {REPO}")


async def test_push_wait_exits_zero_once_pushed(
    cli: Cli, settings: DeskSettings, clone: Path, origin: Path
) -> None:
    head = commit(clone, "a.txt", "one\n", "add a")
    assert (await cli("report", REPO)).returncode == 0
    waiting = asyncio.ensure_future(cli("push", REPO, head, "--wait"))
    approval = await _open_push_approval(cli, head)
    assert not waiting.done()
    assert (await cli("approve", approval)).returncode == 0
    pushed = await waiting
    assert pushed.returncode == 0, shown(pushed)
    assert f"Pushed {head} to main at {origin}" in pushed.stdout, shown(pushed)
    assert "approved by" in pushed.stdout
    assert git(origin, "rev-parse", "main") == head


async def test_push_wait_exits_non_zero_when_declined(cli: Cli, clone: Path, origin: Path) -> None:
    head = commit(clone, "a.txt", "one\n", "add a")
    assert (await cli("report", REPO)).returncode == 0
    before = refs(origin)
    waiting = asyncio.ensure_future(cli("push", REPO, head, "--wait", "--json"))
    approval = await _open_push_approval(cli, head)
    answered = await cli("decline", approval)
    assert answered.returncode == 0, shown(answered)
    assert "Not pushed (declined): The push was declined by " in answered.stdout, shown(answered)
    declined = await waiting
    assert declined.returncode == 1, shown(declined)
    document = json.loads(declined.stdout[declined.stdout.index("{") :])
    assert document["status"] == "declined" and document["sha"] == head
    assert refs(origin) == before


async def _open_push_approval(cli: Cli, head: str) -> str:
    """The id of the open approval of the push of `head`, once `codedesk approvals` lists it."""
    found: list[str] = []

    async def listed() -> bool:
        shown_approvals = await cli("approvals", "--json")
        found[:] = [
            item["approval_id"]
            for item in json.loads(shown_approvals.stdout)
            if item["request"]["input"].get("sha") == head
        ]
        return bool(found)

    await until(listed, "the push's approval")
    return found[0]


async def test_owner_repository_push_wait_runs_without_a_hold(
    cli: Cli, desk: DeskClient, settings: DeskSettings, clone: Path, origin: Path
) -> None:
    # The host exempts the repository: its worker tells the desk so when it starts.
    await configure_desk(desk.client, settings.model_copy(update={"owner_repos": [REPO]}))
    head = commit(clone, "a.txt", "one\n", "add a")
    assert (await cli("report", REPO)).returncode == 0
    pushed = await cli("push", REPO, head, "--wait")
    assert pushed.returncode == 0, shown(pushed)
    assert f"The desk's host policy exempts {REPO}" in pushed.stdout
    assert "approve" not in pushed.stdout
    assert git(origin, "rev-parse", "main") == head


async def test_a_requester_naming_its_repository_exempt_still_waits_for_an_owner(
    cli: Cli, clone: Path, origin: Path
) -> None:
    # The attack of issue 24: the requesting command's own environment names the repository
    # an owner repository and itself an owner. The host's policy (the worker's) says neither.
    before = refs(origin)
    head = commit(clone, "a.txt", "one\n", "add a")
    assert (await cli("report", REPO)).returncode == 0
    asked = await cli(
        "push", REPO, head, CODEDESK_OWNER_REPOS=REPO, CODEDESK_OWNERS="local:mallory"
    )
    assert asked.returncode == 0, shown(asked)
    ident = approval_in(asked)
    await approval_open(cli, ident)
    assert refs(origin) == before
    answered = await cli("withdraw", ident, "--reason", "test over")
    assert answered.returncode == 0, shown(answered)
    assert refs(origin) == before


async def test_push_hold_waits_for_an_owner_although_the_host_exempts_the_repository(
    cli: Cli, desk: DeskClient, settings: DeskSettings, clone: Path, origin: Path
) -> None:
    await configure_desk(desk.client, settings.model_copy(update={"owner_repos": [REPO]}))
    before = refs(origin)
    head = commit(clone, "a.txt", "one\n", "add a")
    assert (await cli("report", REPO)).returncode == 0
    asked = await cli("push", REPO, head, "--hold")
    assert asked.returncode == 0, shown(asked)
    ident = approval_in(asked)
    await approval_open(cli, ident)
    assert (await cli("withdraw", ident, "--reason", "test over")).returncode == 0
    assert refs(origin) == before


async def test_push_refusals_are_one_line(cli: Cli, clone: Path, origin: Path) -> None:
    before = refs(origin)
    head = commit(clone, "a.txt", "one\n", "add a")
    reason = assert_refused(await cli("push", REPO, "abc123"), "full commit SHA", "40 hex")
    assert "codedesk report" in reason
    assert_refused(await cli("push", REPO, head), "no change report", f"codedesk report {REPO}")
    assert (await cli("report", REPO)).returncode == 0
    assert (await cli("push", REPO, head)).returncode == 0
    assert_refused(await cli("push", REPO, head), "already requested")
    assert refs(origin) == before
