"""The approval commands and `codedesk hold` as people and hooks run them: the console script."""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from activities.agent.process.hook_settings import hook_script
from desk.agents.presets import HELD_TOOLS_MATCHER, PRESETS, claude_hook_settings, preset_command
from desk.config.settings import DeskSettings, load_settings
from desk.holds.approvals import HoldAnswer, HoldRequest, HoldVerdict, OutcomeKind, approval_id
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agent_pids import agent_tag, codedesk_environment, running_agent
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import (
    CODEDESK,
    assert_refused,
    cli_env,
    run_cli,
    settings_env,
    shown,
)
from tests.helpers.job_waits import open_ids, working
from tests.helpers.repos import git
from tests.helpers.waiting import awaited, until
from workers.desk_handle import configure_desk
from workers.worker import build_worker
from workflows.job.coding_job import CodingJob
from workflows.shipping.approval import Approval

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
    # What the approval led to: the job's call runs (its agent waits for the answer).
    assert f"Job {number}'s Bash call runs" in approved.stdout, shown(approved)

    report = await awaited(desk.wait(number), f"job {number}'s report")
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
    said = f"Job {number}'s Bash call does not run: its agent is told it was declined."
    assert said in declined.stdout, shown(declined)
    report = await awaited(desk.wait(number), f"job {number}'s report")
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
    report = await awaited(desk.wait(number), f"job {number}'s report")
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
    assert_refused(
        unknown, "No open approval has 'no-such-approval' in its id", "codedesk approvals"
    )

    await desk.cancel(number)
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.PENDING] * 2, (
        report.held_calls
    )


# The Claude Code preset. The claude CLI is not installed here: check what it would be given.


def test_claude_preset_and_hook_settings() -> None:
    command = preset_command("claude")
    assert command == PRESETS["claude"]
    parts = shlex.split(command)
    assert parts[:2] == ["claude", "-p"]
    # The task is the first message on its streaming input, so the command line names none.
    assert parts[parts.index("--input-format") + 1] == "stream-json"
    assert "{task}" not in parts and "--" not in parts
    assert parts[parts.index("--settings") + 1] == "{hook_settings}"
    settings = claude_hook_settings("codedesk hold --format claude")
    [entry] = settings["hooks"]["PreToolUse"]
    assert set(entry["matcher"].split("|")) >= {"Bash", "Write", "Edit"}
    assert entry["matcher"] == HELD_TOOLS_MATCHER
    assert entry["hooks"] == [{"type": "command", "command": "codedesk hold --format claude"}]
    with pytest.raises(Exception, match="no agent preset 'nope'"):
        preset_command("nope")


async def test_hook_settings_placeholder_gets_a_real_file_whose_hook_works(
    settings: DeskSettings, client: Client, origin: Path, tmp_path: Path, gates: Path
) -> None:
    short = load_settings(**{**settings.model_dump(), "hold_wait": "1s"})
    async with build_worker(client, short):
        await configure_desk(client, short)
        desk = DeskClient(client, short)
        await desk.add_repo(REPO, str(origin))
        tag, go_on = agent_tag(), gates / "go-on"
        steps = (tag, "say:settings at {hook_settings}", f"wait-file:{go_on}")
        number = await desk.start_job(REPO, "hooked", agent_command=agent(*steps))
        await working(desk, number)
        path = short.jobs_dir / str(number) / "hook-settings.json"
        agent_pid = await running_agent(short.home, number, tag)
        await until(path.exists, "the hook settings")
        document = json.loads(path.read_text())
        [entry] = document["hooks"]["PreToolUse"]
        assert entry["matcher"] == HELD_TOOLS_MATCHER
        [hook] = entry["hooks"]
        assert hook["type"] == "command"
        assert hook["timeout"] > short.hold_wait.total_seconds() + 15
        assert shlex.split(hook["command"])[:4] == [sys.executable, "-I", "-S", hook_script()]

        # The agent's environment names its job and its hold channel, and no Temporal server.
        agent_env = codedesk_environment(agent_pid)  # read from outside: it may be sandboxed
        assert agent_env["CODEDESK_JOB"] == str(number)
        assert "CODEDESK_TEMPORAL_ADDRESS" not in agent_env
        assert "CODEDESK_NAMESPACE" not in agent_env
        socket_path = Path(agent_env["CODEDESK_HOLD_SOCKET"])
        assert json.loads((socket_path.parent / "hold.json").read_text())["job"] == number
        assert socket_path.stat().st_mode & 0o777 == 0o600

        # Run the hook as Claude Code would: through the shell, with the agent's environment.
        hook_env = cli_env(**agent_env)
        for tool_input, code, decision in [
            ({"command": "git status"}, 0, None),
            ({"command": "git push --force origin main"}, 2, "deny"),
        ]:
            given = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": tool_input}
            done = await asyncio.to_thread(
                subprocess.run,
                ["sh", "-c", hook["command"]],
                input=json.dumps(given),
                env=hook_env,
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == code, shown(done)
            if decision is None:
                assert done.stdout == "", shown(done)  # no "allow": Claude Code's rules apply
                continue
            answer = json.loads(done.stdout)["hookSpecificOutput"]
            assert answer["permissionDecision"] == decision, shown(done)
            assert "Nobody has answered approval" in answer["permissionDecisionReason"]

        go_on.touch()
        report = await awaited(desk.wait(number), f"job {number}'s report")
        assert f"settings at {path}" in report.output
        assert report.tool_calls == 2  # one answered by the hook, one held
        assert not socket_path.exists()
