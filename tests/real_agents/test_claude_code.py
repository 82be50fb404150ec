"""The `claude` preset with the real Claude Code CLI, its model a scripted fake on 127.0.0.1.

Each test runs a real codedesk job (real Temporal, real git, the real `claude` binary from npm)
whose model is a script: tool calls, then a final answer. What the fake gets back (the tool
results) is what the model would have read.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from activities.holds.tool_schemas import preset_tool_schema
from desk.agents.presets import preset_command
from desk.agents.standing_instructions import BUILT_IN, BUILT_IN_NAME, REQUIRED_PARTS
from desk.config.settings import DeskSettings
from desk.holds.approvals import Decision, HoldVerdict, Principal
from desk.payloads.jobs import JobOutcome, JobReport
from desk.payloads.ship_payloads import PushStatus
from desk.payloads.ship_requests import ShipRequestStatus
from surfaces.clients.approval_client import ApprovalsClient, ApprovalState
from surfaces.clients.desk_client import DeskClient
from surfaces.render.layout.approval_layout import approval_card
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain
from tests.helpers.real_agents.claude_code import AGENT_ENV, REPO
from tests.helpers.real_agents.claude_code import claude_binary as claude_binary
from tests.helpers.real_agents.claude_code import claude_env as claude_env
from tests.helpers.repos import git, make_origin
from tests.helpers.waiting import eventually
from tests.real_agents import HEARTBEAT_TIMEOUT
from tests.real_agents.fake_anthropic import (
    SUBAGENT_SAYS,
    FakeAnthropic,
    IfInstructed,
    Say,
    ToolCall,
    bash,
)
from tests.real_agents.install import agent_cache
from workflows.shipping.ship import Ship

pytestmark = pytest.mark.timeout(240)
HOLD_WAIT = timedelta(seconds=20)

COMMIT = bash("git add -A && git commit -q -m 'Add notes'")


@pytest.fixture
def settings(settings: DeskSettings, request: pytest.FixtureRequest) -> DeskSettings:
    # Long enough for the test to answer an approval on a busy machine, short enough to wait
    # out once for the unanswered hold.
    # A test parametrized by `sandbox` runs its agent in that sandbox (else the suite's).
    given = getattr(request.node, "callspec", None)
    sandbox = given.params.get("sandbox", settings.sandbox) if given else settings.sandbox
    live = request.node.get_closest_marker("live_holds") is not None
    return settings.model_copy(
        update={
            "hold_wait": HOLD_WAIT,
            # A test marked live_holds waits the hold out live: no suspension.
            "hold_live_wait": timedelta(0) if live else settings.hold_live_wait,
            "heartbeat_timeout": HEARTBEAT_TIMEOUT,
            "sandbox": sandbox,
            "agent_env": [*settings.agent_env, *AGENT_ENV],
            "sandbox_read_paths": [*settings.sandbox_read_paths, str(agent_cache())],
            # In bubblewrap the fake model on the worker's loopback is reached through the
            # egress proxy, which refuses loopback unless a setting names the host.
            "sandbox_egress": ["*", "127.0.0.1"],
        }
    )


@dataclass
class Answered:
    """What a person did with the approvals a job opened."""

    approvals: list[ApprovalState]


async def run_job(
    desk: DeskClient,
    settings: DeskSettings,
    task: str,
    decide: Callable[[ApprovalState], Decision | None] = lambda state: None,
) -> tuple[JobReport, Answered]:
    """Run a `claude` preset job; answer each approval it opens with `decide` (None: leave it)."""
    number = await desk.start_job(REPO, task, agent_command=preset_command("claude"))
    approvals = ApprovalsClient(desk.client)
    seen: dict[str, ApprovalState] = {}
    waiting = asyncio.create_task(desk.wait(number))
    while not waiting.done():
        for state in await approvals.open_approvals():
            if state.approval_id in seen:
                continue
            seen[state.approval_id] = state
            decision = decide(state)
            if decision is not None:
                await approvals.answer(state.approval_id, decision, Principal(id=settings.owner))
        await asyncio.wait({waiting}, timeout=0.2)
    return waiting.result(), Answered(list(seen.values()))


def asks_about(state: ApprovalState, text: str) -> bool:
    return text in json.dumps(state.request.model_dump(mode="json"))


def origin_branches(origin: Path) -> str:
    return git(origin, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads")


@pytest.mark.parametrize(
    "sandbox",
    [
        "none",
        pytest.param(
            "bwrap",
            marks=pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bubblewrap here"),
        ),
    ],
)
async def test_harmless_calls_run_and_commit_and_the_report_has_the_final_answer(
    sandbox: str,
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
) -> None:
    fake = claude_env(
        [
            ToolCall("Write", {"file_path": "NOTES.md", "content": "notes\n"}),
            bash("ls && git status --short"),
            COMMIT,
            Say("I added NOTES.md and committed it."),
        ]
    )
    await desk.add_repo(REPO, str(origin))
    report, answered = await run_job(desk, settings, "-v add a notes file")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["Add notes"]
    assert answered.approvals == []
    assert "I added NOTES.md and committed it." in report.output
    prompt = json.dumps(fake.conversation()[0]["messages"][0])
    assert "-v add a notes file" in prompt, prompt
    results = fake.tool_results()
    assert len(results) == 3, results
    assert "NOTES.md" in results[1], results
    log = Path(report.log_path).read_text()
    assert "→ Write: NOTES.md\n" in log, log
    assert "→ Bash: git add -A && git commit -q -m 'Add notes'\n" in log, log
    assert '"type"' not in log, log
    used = fake.used
    assert report.usage is not None, report
    assert report.usage.input_tokens == used["input_tokens"] + used["cache_creation_input_tokens"]
    assert report.usage.cached_tokens == used["cache_read_input_tokens"]
    assert report.usage.output_tokens == used["output_tokens"]
    assert report.usage.cost is not None and report.usage.cost > 0, report.usage


async def test_a_subagent_on_another_model_counts_in_the_report_by_its_model(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
) -> None:
    """The result's `usage` covers the main model's turns only; what the job reports is what
    every request cost, the subagent's on Haiku included, with each model's part."""
    look = {"description": "look", "prompt": "Look around.", "subagent_type": "general-purpose"}
    # In the foreground: newer releases start a subagent in the background by default.
    task = ToolCall("Task", {**look, "model": "haiku", "run_in_background": False})
    fake = claude_env([task, Say("Looked.")])
    await desk.add_repo(REPO, str(origin))
    report, _ = await run_job(desk, settings, "look around with a subagent")
    assert report.outcome == JobOutcome.NOTHING, report
    assert SUBAGENT_SAYS in "".join(fake.tool_results())
    used, usage = fake.used, report.usage
    assert usage is not None, report
    assert usage.input_tokens == used["input_tokens"] + used["cache_creation_input_tokens"]
    assert usage.cached_tokens == used["cache_read_input_tokens"]
    assert usage.output_tokens == used["output_tokens"]
    haiku = [name for name in usage.by_model if "haiku" in name]
    assert len(usage.by_model) == 2 and len(haiku) == 1, usage
    # The CLI's own total (`total_cost_usd`), which its per-model floats add up to.
    assert usage.cost is not None
    parts = sum(part.cost or 0 for part in usage.by_model.values())
    assert abs(usage.cost - parts) < Decimal("1e-12"), usage
    shown = "\n".join(plain(job_report(report)))
    assert all(f"{name}: " in shown for name in usage.by_model), shown


async def test_an_approved_push_to_main_is_shipped_by_codedesk_and_a_forced_one_stays_held(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
) -> None:
    fake = claude_env(
        [
            ToolCall("Write", {"file_path": "NOTES.md", "content": "notes\n"}),
            COMMIT,
            bash("git push origin HEAD:main"),
            bash("git push --force origin HEAD:main"),
            Say("Left the push to codedesk."),
        ]
    )
    await desk.add_repo(REPO, str(origin))
    before = git(origin, "rev-parse", "main")

    def decide(state: ApprovalState) -> Decision:
        return Decision.APPROVE if state.request.ships_to else Decision.DECLINE

    report, answered = await run_job(desk, settings, "Push the notes", decide)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.confinement == "bwrap", report
    plain, forced = answered.approvals
    assert plain.request.ships_to == "main", plain
    assert "codedesk will ask to push the job's commits to main" in card_text(plain)
    assert forced.request.ships_to == "" and forced.request.confined, forced
    assert "runs inside the agent's sandbox" in card_text(forced)
    assert "cannot reach the origin" in card_text(forced)
    shipped_answer, forced_answer = fake.tool_results()[2:4]
    assert "codedesk will ask to push your commits to main" in shipped_answer, shipped_answer
    assert "declined" in forced_answer and "Leave shipping to codedesk" in forced_answer
    assert git(origin, "rev-parse", "main") == before

    [shipped] = report.ship_requests
    assert shipped.status == ShipRequestStatus.REQUESTED and shipped.sha == report.head, shipped
    approvals = ApprovalsClient(desk.client)
    [push] = await eventually(
        approvals.open_approvals,
        lambda states: [s for s in states if s.approval_id == shipped.push_approval_id],
        "the push of the integrated SHA to ask for an owner",
    )
    assert push.request.input["sha"] == report.head, push
    assert push.request.agent_ship and push.request.agent_ship.approval_id == plain.approval_id
    owner = Principal(id=settings.owner)
    answer, _ = await approvals.answer(push.approval_id, Decision.APPROVE, owner)
    assert answer.counted, answer
    ship = desk.client.get_workflow_handle_for(Ship.run, shipped.push_workflow_id)
    pushed = await ship.result()
    assert pushed.status == PushStatus.PUSHED and not pushed.already, pushed
    assert git(origin, "rev-parse", "main") == report.head
    assert git(origin, "rev-list", "--count", f"{before}..main") == "1"


async def test_a_declined_push_to_main_moves_nothing(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
) -> None:
    fake = claude_env(
        [
            ToolCall("Write", {"file_path": "NOTES.md", "content": "notes\n"}),
            COMMIT,
            bash("git push origin HEAD:refs/heads/main"),
            Say("Not pushed."),
        ]
    )
    await desk.add_repo(REPO, str(origin))
    before = origin_branches(origin)
    report, answered = await run_job(desk, settings, "Push", lambda state: Decision.DECLINE)
    assert [state.request.ships_to for state in answered.approvals] == ["main"], answered
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert "declined" in fake.tool_results()[2].lower(), fake.tool_results()
    assert report.ship_requests == []
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.DECLINED]
    approvals = ApprovalsClient(desk.client)
    assert not [s for s in await approvals.open_approvals() if s.request.agent_ship], "a push card"
    assert origin_branches(origin) == before


def card_text(state: ApprovalState) -> str:
    return " ".join(" ".join(plain(approval_card(state, value_chars=200))).split())


async def test_a_write_outside_the_worktree_is_held(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside" / "planted.txt"
    fake = claude_env(
        [
            ToolCall("Write", {"file_path": str(outside), "content": "planted\n"}),
            Say("I could not write there."),
        ]
    )
    await desk.add_repo(REPO, str(origin))
    report, answered = await run_job(
        desk, settings, "Write outside", lambda state: Decision.DECLINE
    )
    assert [asks_about(state, "planted.txt") for state in answered.approvals] == [True]
    # Its card is Claude Code's own Write form: the schema codedesk ships, titles in its order.
    [state] = answered.approvals
    assert state.request.parameters == preset_tool_schema("claude", "Write")
    assert card_text(state).index("File path:") < card_text(state).index("Content:")
    assert not outside.exists()
    assert report.outcome == JobOutcome.NOTHING, report
    assert "declined" in fake.tool_results()[0].lower(), fake.tool_results()


async def test_a_repository_with_its_own_workflows_package_cannot_crash_the_hook(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    tmp_path: Path,
) -> None:
    marker = tmp_path / "repository-code-ran"
    planted = f"open({str(marker)!r}, 'w').close()\nraise SystemExit(1)\n"
    origin = make_origin(
        tmp_path / "origins" / "acme" / "api.git",
        {
            name: planted
            for name in (
                "workflows/__init__.py",
                "desk/__init__.py",
                "activities/__init__.py",
                "surfaces/__init__.py",
                "workers/__init__.py",
            )
        },
    )
    before = origin_branches(origin)
    fake = claude_env([bash("git push origin HEAD:refs/heads/main"), Say("Tried to push.")])
    await desk.add_repo(REPO, str(origin))
    report, answered = await run_job(desk, settings, "Push", lambda state: Decision.DECLINE)
    assert len(answered.approvals) == 1, (answered, fake.tool_results())
    assert origin_branches(origin) == before
    assert not marker.exists()
    assert report.outcome == JobOutcome.NOTHING, report


@pytest.mark.live_holds
async def test_an_unanswered_hold_is_refused_by_codedesk(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
) -> None:
    fake = claude_env(
        [
            ToolCall("Write", {"file_path": "NOTES.md", "content": "notes\n"}),
            COMMIT,
            bash("git push origin HEAD:refs/heads/main"),
            Say("Nobody answered."),
        ]
    )
    await desk.add_repo(REPO, str(origin))
    before = origin_branches(origin)
    report, answered = await run_job(desk, settings, "Push unanswered")
    assert len(answered.approvals) == 1, answered
    assert origin_branches(origin) == before
    refusal = fake.tool_results()[2]
    assert "codedesk" in refusal.lower() or "answer" in refusal.lower(), refusal
    assert [call.verdict for call in report.held_calls] != [], report


async def test_a_model_that_refuses_fails_the_job_with_the_reason(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
) -> None:
    claude_env([], refuse="the model is not available")
    await desk.add_repo(REPO, str(origin))
    report, _ = await run_job(desk, settings, "Anything")
    assert report.outcome == JobOutcome.FAILED, report
    assert report.reason.startswith("Claude Code could not finish: "), report
    assert "the model is not available" in report.reason, report
    assert report.failure_category == "agent"


async def test_the_standing_instructions_reach_the_system_prompt_and_the_model_commits(
    claude_env: Callable[..., FakeAnthropic],
    desk: DeskClient,
    settings: DeskSettings,
    origin: Path,
) -> None:
    """A model that edits and ends without committing unless its system prompt says to: given
    the instructions by `--append-system-prompt`, the job ends integrated (issue 27)."""
    fake = claude_env(
        [
            ToolCall("Write", {"file_path": "NOTES.md", "content": "notes\n"}),
            IfInstructed(REQUIRED_PARTS[1].sentence, COMMIT),
            Say("I added NOTES.md and committed it."),
        ]
    )
    await desk.add_repo(REPO, str(origin))
    report, _ = await run_job(desk, settings, "Add a notes file")
    prompts = fake.system_prompts()
    assert prompts and all(BUILT_IN.text.strip() in prompt for prompt in prompts), prompts[-1:]
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["Add notes"]
    assert report.instructions is not None and report.instructions.name == BUILT_IN_NAME
    assert report.instructions.digest == BUILT_IN.digest
