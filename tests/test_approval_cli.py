"""The approval commands and `codedesk hold` as people and hooks run them: the console script."""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from desk.agents import HELD_TOOLS_MATCHER, PRESETS, claude_hook_settings, preset_command
from desk.approvals import HoldAnswer, HoldRequest, HoldVerdict, OutcomeKind, approval_id
from desk.errors import HoldError
from desk.models import JobOutcome, JobPhase
from desk.settings import DeskSettings
from surfaces.approvals_client import ApprovalsClient
from surfaces.desk_client import DeskClient
from surfaces.hold import read_request
from tests.cli_helpers import (
    CODEDESK,
    assert_refused,
    cli_env,
    run_cli,
    settings_env,
    shown,
)
from tests.conftest import agent, git
from workers.devserver import free_port
from workflows.approval import Approval
from workflows.coding_job import CodingJob

REPO = "acme/api"
PUSH_INPUT: dict[str, Any] = {"command": "git push origin main"}
PUSH: dict[str, Any] = {"tool": "Bash", "input": PUSH_INPUT}
HOLD_PUSH = "hold:" + json.dumps(PUSH)


async def run_hold(
    env: dict[str, str], text: str, *args: str, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """`codedesk hold` with `text` on its stdin."""
    return await asyncio.to_thread(
        subprocess.run,
        [CODEDESK, "hold", *args],
        input=text,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def open_ids(approvals: ApprovalsClient, count: int = 1) -> list[str]:
    for _ in range(300):
        listed = [state.approval_id for state in await approvals.open_approvals()]
        if len(listed) >= count:
            return listed
        await asyncio.sleep(0.1)
    raise AssertionError(f"fewer than {count} approvals opened")


async def working(desk: DeskClient, number: int) -> None:
    for _ in range(300):
        _, status = await desk.status(number)
        if status.phase == JobPhase.WORKING and status.worktree:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"job {number} never started working")


@pytest.fixture
def env(settings: DeskSettings) -> dict[str, str]:
    return settings_env(settings)


async def test_list_then_approve_by_prefix_while_the_agent_blocks(
    desk: DeskClient, env: dict[str, str], origin: Path, tmp_path: Path, settings: DeskSettings
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "push it", agent_command=agent(HOLD_PUSH, "write:pushed.txt=yes", "commit:pushed")
    )
    [ident] = await open_ids(ApprovalsClient(desk.client))
    assert ident == approval_id(f"job-{number}", "Bash", PUSH_INPUT)

    listed = await run_cli(env, "approvals", "--json", cwd=tmp_path)
    assert listed.returncode == 0, shown(listed)
    [entry] = json.loads(listed.stdout)
    assert entry["approval_id"] == ident
    assert entry["outcome"] is None
    assert entry["request"]["tool"] == "Bash"
    assert entry["request"]["input"] == PUSH_INPUT
    assert entry["request"]["classes"] == ["push"]
    assert entry["request"]["scope"] == f"job-{number}"

    cards = await run_cli(env, "approvals", cwd=tmp_path)
    assert cards.returncode == 0, shown(cards)
    assert ident in cards.stdout
    assert "git push origin main" in cards.stdout
    assert "held because: push" in cards.stdout
    assert f"codedesk approve {ident}" in cards.stdout

    # A unique prefix, with or without `approval-`, is enough.
    approved = await run_cli(env, "approve", ident[:-3], cwd=tmp_path)
    assert approved.returncode == 0, shown(approved)
    assert f"{ident}: approved." in approved.stdout, shown(approved)

    report = await asyncio.wait_for(desk.wait(number), timeout=30)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert "hold allowed" in report.output
    assert git(settings.shelf_dir / "acme" / "api", "log", "-1", "--format=%s") == "pushed"
    outcome = await desk.client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.APPROVED
    assert outcome.by is not None and outcome.by.id == settings.owner
    assert outcome.card_id == f"cli:{ident}"

    # Settled: a later answer by its full id is told it did not count.
    late = await run_cli(env, "approve", ident, cwd=tmp_path)
    assert late.returncode != 0, shown(late)
    assert "did not count" in late.stdout and "no longer open" in late.stdout, shown(late)

    nothing = await run_cli(env, "approvals", cwd=tmp_path)
    assert nothing.returncode == 0 and "No open approvals." in nothing.stdout, shown(nothing)


async def test_decline_from_the_cli(
    desk: DeskClient, env: dict[str, str], origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "push it", agent_command=agent(HOLD_PUSH, "write:pushed.txt=yes", "commit:pushed")
    )
    [ident] = await open_ids(ApprovalsClient(desk.client))
    declined = await run_cli(env, "decline", f"job-{number}-", cwd=tmp_path)
    assert declined.returncode == 0, shown(declined)
    assert f"{ident}: declined." in declined.stdout
    report = await asyncio.wait_for(desk.wait(number), timeout=30)
    assert report.outcome == JobOutcome.NOTHING, report
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.DECLINED]
    assert "Do not retry" in report.output


async def test_withdraw_from_the_cli_with_a_reason(
    desk: DeskClient, env: dict[str, str], origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "push it", agent_command=agent(HOLD_PUSH, "write:pushed.txt=yes", "commit:pushed")
    )
    [ident] = await open_ids(ApprovalsClient(desk.client))
    withdrawn = await run_cli(env, "withdraw", ident, "--reason", "wrong branch", cwd=tmp_path)
    assert withdrawn.returncode == 0, shown(withdrawn)
    assert f"Withdrawal of {ident} sent" in withdrawn.stdout
    report = await asyncio.wait_for(desk.wait(number), timeout=30)
    [held] = report.held_calls
    assert held.verdict == HoldVerdict.WITHDRAWN and held.note == "wrong branch"
    assert "wrong branch" in report.output
    outcome = await desk.client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.WITHDRAWN and outcome.note == "wrong branch"

    gone = await run_cli(env, "withdraw", ident, cwd=tmp_path)
    assert_refused(gone, "no longer open")


async def test_ambiguous_and_unknown_ids_are_clear_errors(
    desk: DeskClient, env: dict[str, str], origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "sleep", agent_command=agent("sleep:30"))
    await working(desk, number)
    handle = desk.job(number)
    for command in ("git push origin a", "git push origin b"):
        answer: HoldAnswer = await handle.execute_update(
            CodingJob.hold,
            HoldRequest(tool="Bash", input={"command": command}, wait_seconds=0.1),
        )
        assert answer.verdict == HoldVerdict.PENDING, answer
    await open_ids(ApprovalsClient(desk.client), 2)

    ambiguous = await run_cli(env, "approve", f"job-{number}", cwd=tmp_path)
    reason = assert_refused(ambiguous, "matches 2 open approvals", "give more of the id")
    assert "counted" not in reason
    unknown = await run_cli(env, "approve", "no-such-approval", cwd=tmp_path)
    assert_refused(unknown, "No open approval starts with 'no-such-approval'", "codedesk approvals")

    await desk.cancel(number)
    report = await asyncio.wait_for(desk.wait(number), timeout=30)
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.PENDING] * 2


# `codedesk hold` fails closed.


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", ["not JSON", "may not run"]),
        ("[1, 2]", ["malformed", "not of type 'object'"]),
        ('{"input": {"command": "ls"}}', ["malformed", "names no tool", "tool_name"]),
        ('{"tool": "Bash", "input": "ls"}', ["malformed at input", "object"]),
        ('{"tool": ""}', ["malformed at tool"]),
        ('{"tool_name": 3}', ["malformed at tool_name"]),
    ],
)
def test_a_malformed_hold_request_is_refused_with_its_reason(text: str, words: list[str]) -> None:
    with pytest.raises(HoldError) as refused:
        read_request(text, timedelta(seconds=5))
    for word in words:
        assert word in str(refused.value)


def test_both_request_forms_read_alike() -> None:
    ours = read_request(json.dumps(PUSH), timedelta(seconds=7))
    claude = read_request(
        json.dumps({"tool_name": "Bash", "tool_input": PUSH_INPUT, "session_id": "s"}),
        timedelta(seconds=7),
    )
    assert ours == claude
    assert ours.tool == "Bash" and ours.input == PUSH_INPUT and ours.wait_seconds == 7


async def test_hold_refuses_malformed_json_and_a_missing_job(
    env: dict[str, str], tmp_path: Path
) -> None:
    malformed = await run_hold({**env, "CODEDESK_JOB": "1"}, "{not json", cwd=tmp_path)
    assert malformed.returncode == 2, shown(malformed)
    assert malformed.stdout == "" and "not JSON" in malformed.stderr, shown(malformed)
    no_job = await run_hold(env, json.dumps(PUSH), "--format", "claude", cwd=tmp_path)
    assert no_job.returncode == 2, shown(no_job)
    assert no_job.stdout == "" and "CODEDESK_JOB is not set" in no_job.stderr, shown(no_job)


async def test_hold_refuses_for_a_job_that_does_not_exist(
    desk: DeskClient, env: dict[str, str], tmp_path: Path
) -> None:
    harmless = {"tool": "Bash", "input": {"command": "git status"}}
    done = await run_hold({**env, "CODEDESK_JOB": "987"}, json.dumps(harmless), cwd=tmp_path)
    assert done.returncode == 2, shown(done)
    assert "Job 987 is not running" in done.stderr, shown(done)
    assert "Traceback" not in done.stderr


async def test_hold_refuses_when_the_server_is_unreachable(tmp_path: Path) -> None:
    env = cli_env(
        CODEDESK_HOME=str(tmp_path / "home"),
        CODEDESK_TEMPORAL_ADDRESS=f"127.0.0.1:{free_port()}",
        CODEDESK_JOB="1",
    )
    harmless = {"tool": "Bash", "input": {"command": "git status"}}
    done = await run_hold(env, json.dumps(harmless), cwd=tmp_path)
    assert done.returncode == 2, shown(done)
    assert "Cannot reach the Temporal server" in done.stderr, shown(done)


async def test_hold_against_a_running_job(
    desk: DeskClient, env: dict[str, str], origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "sleep", agent_command=agent("sleep:30"))
    await working(desk, number)
    job_env = {**env, "CODEDESK_JOB": str(number), "CODEDESK_HOLD_WAIT": "1s"}
    # Claude Code's PreToolUse input, extra fields and all.
    claude_status = {
        "session_id": "abc",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git status", "description": "Show status"},
    }
    claude_push = {**claude_status, "tool_input": PUSH_INPUT}

    allowed = await run_hold(job_env, json.dumps(claude_status), cwd=tmp_path)
    assert allowed.returncode == 0, shown(allowed)
    refused = await run_hold(job_env, json.dumps(claude_push), cwd=tmp_path)
    assert refused.returncode == 2, shown(refused)
    assert "Nobody has answered approval" in refused.stderr, shown(refused)

    ident = approval_id(f"job-{number}", "Bash", PUSH_INPUT)
    assert ident in refused.stderr

    await desk.cancel(number)
    report = await asyncio.wait_for(desk.wait(number), timeout=30)
    assert [call.approval_id for call in report.held_calls] == [ident]


# The Claude Code preset. The claude CLI is not installed here: check what it would be given.


def test_claude_preset_and_hook_settings() -> None:
    command = preset_command("claude")
    assert command == PRESETS["claude"]
    parts = shlex.split(command)
    assert parts[:2] == ["claude", "-p"]
    assert parts[-2:] == ["--", "{task}"]
    assert parts[parts.index("--settings") + 1] == "{hook_settings}"
    settings = claude_hook_settings("codedesk hold --format claude")
    [entry] = settings["hooks"]["PreToolUse"]
    assert set(entry["matcher"].split("|")) >= {"Bash", "Write", "Edit"}
    assert entry["matcher"] == HELD_TOOLS_MATCHER
    assert entry["hooks"] == [{"type": "command", "command": "codedesk hold --format claude"}]
    with pytest.raises(Exception, match="no agent preset 'nope'"):
        preset_command("nope")


async def test_hook_settings_placeholder_gets_a_real_file_whose_hook_works(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO, "hooked", agent_command=agent("say:settings at {hook_settings}", "sleep:30")
    )
    await working(desk, number)
    path = settings.jobs_dir / str(number) / "hook-settings.json"
    for _ in range(100):
        if path.exists():
            break
        await asyncio.sleep(0.1)
    document = json.loads(path.read_text())
    [entry] = document["hooks"]["PreToolUse"]
    assert entry["matcher"] == HELD_TOOLS_MATCHER
    [hook] = entry["hooks"]
    assert hook["type"] == "command"
    argv = shlex.split(hook["command"])
    assert argv == [sys.executable, "-m", "surfaces.cli", "hold", "--format", "claude"]

    # Run the hook as Claude Code would, with the environment the job gives its agent.
    hook_env = cli_env(
        CODEDESK_JOB=str(number),
        CODEDESK_TEMPORAL_ADDRESS=settings.temporal_address,
        CODEDESK_NAMESPACE=settings.namespace,
        CODEDESK_HOLD_WAIT="0.5s",
    )
    for tool_input, decision in [
        ({"command": "git status"}, "allow"),
        ({"command": "git push --force origin main"}, "deny"),
    ]:
        given = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": tool_input}
        done = await asyncio.to_thread(
            subprocess.run,
            argv,
            input=json.dumps(given),
            env=hook_env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, shown(done)
        answer = json.loads(done.stdout)["hookSpecificOutput"]
        assert answer["permissionDecision"] == decision, shown(done)

    await desk.cancel(number)
    report = await asyncio.wait_for(desk.wait(number), timeout=30)
    assert f"settings at {path}" in report.output
