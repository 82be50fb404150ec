"""The hold channel with real jobs: the hook reaches its job only through the job's socket."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import tempfile
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from activities.holds.tool_schemas import preset_tool_schema
from activities.sandbox.bubblewrap import BWRAP, choose_sandbox
from desk.config.settings import DeskSettings, load_settings
from desk.holds.approvals import (
    Decision,
    HeldNote,
    HoldVerdict,
    OutcomeKind,
    Principal,
    approval_id,
)
from desk.holds.protocol import Reachable
from desk.payloads.jobs import JobOutcome
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.render.discord.embeds import card_embed
from surfaces.render.discord.replies import report_text
from surfaces.render.layout.approval_effect import approval_effect
from surfaces.render.layout.approval_layout import approval_card
from surfaces.render.layout.report_layout import held_calls
from surfaces.render.terminal.block_lines import plain
from tests.helpers.agents import agent
from tests.helpers.holds.hook_channel import PUSH, PUSH_TEXT, REPO, Agent, decision
from tests.helpers.job_waits import open_ids
from tests.helpers.repos import make_origin
from tests.helpers.waiting import awaited, eventually
from workers.desk_handle import configure_desk
from workers.worker import build_worker
from workflows.shipping.approval import Approval

STATUS: dict[str, Any] = {"tool": "Bash", "input": {"command": "git status"}}


@pytest.fixture
async def quick(settings: DeskSettings, client: Client) -> AsyncIterator[DeskClient]:
    """A desk whose holds give up after 1 s."""
    short = load_settings(**{**settings.model_dump(), "hold_wait": "1s"})
    async with build_worker(client, short):
        await configure_desk(client, short)
        yield DeskClient(client, short)


async def test_an_approval_after_the_hook_gave_up_is_honoured_once(
    quick: DeskClient, origin: Path, gates: Path
) -> None:
    await quick.add_repo(REPO, str(origin))
    job = Agent(quick, gates)
    await job.start()
    ident = approval_id(f"job-{job.number}", "Bash", PUSH["input"])
    gave_up = await job.hook(PUSH)
    assert gave_up.returncode == 2 and decision(gave_up) == "deny", gave_up
    assert ident.encode() in gave_up.stderr and b"Nobody has answered" in gave_up.stderr

    approvals = ApprovalsClient(quick.client)
    result, _ = await approvals.answer(ident, Decision.APPROVE, Principal(id=quick.settings.owner))
    assert result.counted, result
    await quick.client.get_workflow_handle_for(Approval.run, ident).result()

    late = await job.hook(PUSH)  # the same call: the late approval counts, once
    assert late.returncode == 0 and decision(late) == "allow", late
    again = await job.hook(PUSH)  # used up: a new approval, nobody answers it
    assert again.returncode == 2 and decision(again) == "deny", again

    job.go_on.touch()
    report = await awaited(quick.wait(job.number), f"job {job.number}'s report")
    verdicts = [(call.approval_id, call.verdict) for call in report.held_calls]
    assert verdicts == [(ident, HoldVerdict.APPROVED), (ident, HoldVerdict.PENDING)], report
    notes = [call.note_kind for call in report.held_calls]
    assert notes == [HeldNote.APPROVED_LATE_USED, HeldNote.UNANSWERED_AT_END], report
    said = "\n".join(plain(held_calls(report.held_calls)))
    assert "honoured once by the next same call" in said, said
    assert report.held_calls[0].summary == "Run: git push origin main"
    assert report.tool_calls == 3


async def test_a_held_entry_over_the_report_limit_says_how_much_was_cut(
    quick: DeskClient, origin: Path, gates: Path
) -> None:
    # CODEDESK_REPORT_HELD_CHARS (1,000) keeps the start of a long call's summary; the report
    # marks the cut as a card does (pi-roundtable-coding: "explicit truncation notices").
    await quick.add_repo(REPO, str(origin))
    job = Agent(quick, gates)
    await job.start()
    command = "git push origin main # " + "x" * 1500
    gave_up = await job.hook({"tool": "Bash", "input": {"command": command}})
    assert gave_up.returncode == 2, gave_up
    job.go_on.touch()
    report = await awaited(quick.wait(job.number), f"job {job.number}'s report")
    [call] = report.held_calls
    action = f"Run: {command}"
    assert call.summary == action[:1000] and call.summary_cut == len(action) - 1000
    said = "\n".join(plain(held_calls(report.held_calls)))
    assert f"{action[:1000]}… [{len(action) - 1000} chars]" in said, said
    assert f"… [{len(action) - 1000} chars]" in report_text(report)


async def test_a_call_cancelled_while_it_waits_is_listed_once(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    job = Agent(desk, gates)
    await job.start()
    waiting = asyncio.create_task(job.hook(PUSH))
    [ident] = await open_ids(ApprovalsClient(desk.client))
    await desk.cancel(job.number)
    report = await awaited(desk.wait(job.number), f"job {job.number}'s report")
    assert [call.approval_id for call in report.held_calls] == [ident], report.held_calls
    assert report.held_calls[0].tool == "Bash"
    refused = await awaited(waiting, "the hold's refusal")
    assert refused.returncode == 2, refused


@pytest.mark.parametrize(
    ("form", "call", "tool", "card"),
    [
        (
            "claude",
            {"tool_name": "Bash", "tool_input": {"description": "ship", "command": PUSH_TEXT}},
            "Bash",
            f"**Command**: {PUSH_TEXT}\n**Description**: ship",
        ),
        (
            "codex",
            {"tool_name": "Bash", "tool_input": {"command": PUSH_TEXT}},
            "Bash",
            f"**Command**: {PUSH_TEXT}",
        ),
        (
            "opencode",
            {"tool": "bash", "args": {"workdir": ".", "command": PUSH_TEXT, "description": "d"}},
            "bash",
            f"**Command**: {PUSH_TEXT}\n**Working directory**: .\n`description`: d",
        ),
        (
            "opencode",
            {"tool": "edit", "args": {"newString": "b", "filePath": "/etc/x", "oldString": "a"}},
            "Edit",
            "**File path**: /etc/x\n**Old string**: a\n**New string**: b",
        ),
    ],
)
async def test_a_presets_own_tool_has_its_schema_on_the_card(
    quick: DeskClient,
    origin: Path,
    gates: Path,
    form: str,
    call: dict[str, Any],
    tool: str,
    card: str,
) -> None:
    # The CLI's hook brings no schema: codedesk ships each preset's (the real CLI's names and
    # order, with titles), so the card is a field list in that order, not raw keys or JSON.
    await quick.add_repo(REPO, str(origin))
    job = Agent(quick, gates)
    await job.start()
    done = await job.hook(call, form)
    assert done.returncode == 2, done
    [state] = await ApprovalsClient(quick.client).open_approvals()
    assert state.request.tool == tool
    assert state.request.parameters == preset_tool_schema(form, tool)
    shown = card_embed(state.approval_id, state.request).description or ""
    assert shown == f"**Approve `{tool}`?**\n**Action**: {state.request.action}\n{card}", shown
    job.go_on.touch()
    await awaited(quick.wait(job.number), f"job {job.number}'s report")


async def test_large_held_writes_keep_the_history_small(
    quick: DeskClient, origin: Path, tmp_path: Path, gates: Path
) -> None:
    await quick.add_repo(REPO, str(origin))
    job = Agent(quick, gates)
    await job.start()
    outside = tmp_path / "outside"
    big = "x" * 2_000_000
    calls = [
        {"tool": "Write", "input": {"file_path": f"{outside}/{index % 4}.txt", "content": big}}
        for index in range(8)
    ]
    for call in calls:
        done = await job.hook(call)
        assert done.returncode == 2 and decision(done) == "deny", done
    ident = approval_id(f"job-{job.number}", "Write", calls[0]["input"])
    states = await ApprovalsClient(quick.client).open_approvals()
    [state] = [state for state in states if state.approval_id == ident]
    assert state.request.input_bytes > 2_000_000
    assert len(json.dumps(state.request.input)) < 10_000
    assert "more characters" in state.request.input["content"]

    job.go_on.touch()
    report = await awaited(quick.wait(job.number), f"job {job.number}'s report")
    # Identical calls joined: four approvals for eight calls.
    assert len({call.approval_id for call in report.held_calls}) == 4, report.held_calls
    assert report.tool_calls == 8
    history = await quick.job(job.number).fetch_history()
    assert len(history.to_json()) < 200_000
    assert not outside.exists()


async def test_two_hundred_harmless_calls_add_no_history(
    desk: DeskClient, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    events: dict[int, int] = {}
    for count in (0, 200):
        number = await desk.start_job(
            REPO, "look", agent_command=agent(f"hooks:{count}:{json.dumps(STATUS)}")
        )
        report = await awaited(desk.wait(number), f"job {number}'s report")
        assert report.outcome == JobOutcome.NOTHING, report
        assert f"{count} of {count} hooked calls allowed" in report.output
        assert report.tool_calls == count
        events[count] = len([e async for e in desk.job(number).fetch_history_events()])
    assert events[200] - events[0] <= 24, events


async def test_the_channel_answers_only_its_own_jobs_holds(
    desk: DeskClient, origin: Path, gates: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    job = Agent(desk, gates)
    await job.start()

    def exchange(message: bytes) -> dict[str, Any]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as channel:
            with Reachable(str(job.socket)) as address:
                channel.connect(address)
            try:
                channel.sendall(message)
                channel.shutdown(socket.SHUT_WR)
            except BrokenPipeError:
                pass  # the channel stopped reading a message too large: its answer is there
            received = b""
            while chunk := channel.recv(65536):
                received += chunk
        answer: dict[str, Any] = json.loads(received)
        return answer

    other = {**PUSH, "kind": "hold", "job": job.number + 1}
    answer = await asyncio.to_thread(exchange, json.dumps(other).encode() + b"\n")
    assert answer["verdict"] == "declined" and f"job {job.number} only" in answer["reason"]
    approve = {"kind": "approve", "job": job.number, "approval_id": "approval-x"}
    answer = await asyncio.to_thread(exchange, json.dumps(approve).encode() + b"\n")
    assert answer["verdict"] == "declined" and "hold requests only" in answer["reason"]
    huge = b'{"kind": "hold", "job": 1, "input": "' + b"x" * (9 << 20)
    # Again and again: closing on the unread rest of it once reset the connection before the
    # refusal was read (3 in 40 here), a CI failure.
    for _ in range(20):
        answer = await asyncio.to_thread(exchange, huge)
        assert answer["verdict"] == "declined" and "larger than" in answer["reason"]
    assert await ApprovalsClient(desk.client).open_approvals() == []
    job.go_on.touch()
    await awaited(desk.wait(job.number), f"job {job.number}'s report")


async def test_a_repository_with_its_own_desk_package_cannot_pass_a_push(
    desk: DeskClient, tmp_path: Path
) -> None:
    marker = tmp_path / "imported"
    hostile = f"open({str(marker)!r}, 'a').write('x')\n"
    files = {
        "desk/__init__.py": hostile,
        "desk/holds/held_calls.py": hostile + "def classify(*a, **k):\n    return None\n",
        "surfaces/__init__.py": hostile,
        "workflows/__init__.py": hostile,
    }
    origin = make_origin(tmp_path / "origins" / "acme" / "api.git", files)
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO,
        "push",
        agent_command=agent(f"hold:{json.dumps(PUSH)}", "write:pushed.txt=yes", "commit:pushed"),
    )
    approvals = ApprovalsClient(desk.client)
    [ident] = await open_ids(approvals)
    await approvals.answer(ident, Decision.DECLINE, Principal(id=desk.settings.owner))
    report = await awaited(desk.wait(number), f"job {number}'s report")
    assert report.outcome == JobOutcome.NOTHING, report
    assert [call.verdict for call in report.held_calls] == [HoldVerdict.DECLINED]
    assert not marker.exists()
    outcome = await desk.client.get_workflow_handle_for(Approval.run, ident).result()
    assert outcome.kind == OutcomeKind.DECLINED


async def test_work_beside_a_waiting_hold_counts_against_the_budget(
    desk: DeskClient, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(
        REPO,
        "leave a hold waiting, keep working",
        agent_command=agent(
            f"hold-bg:{json.dumps(PUSH)}", "sleep:1", "busy:12", "write:a.txt=1", "commit:a"
        ),
        budget=timedelta(seconds=3),
    )
    report = await awaited(desk.wait(number), f"job {number}'s report")
    # Before: the clock stood still while the hold waited, and 12 s of work ran on a 3 s budget.
    assert report.outcome == JobOutcome.TIMED_OUT, report
    assert report.commits == []


@pytest.mark.skipif(
    choose_sandbox("auto").mode != BWRAP, reason="bubblewrap does not work on this host"
)
async def test_a_sandboxed_agent_asks_its_holds_through_the_channel(
    settings: DeskSettings, client: Client
) -> None:
    base = Path(tempfile.mkdtemp(prefix="codedesk-holds-", dir="/var/tmp"))
    try:
        local = settings.model_copy(
            update={"home": base / "home", "shelf": base / "shelf", "sandbox": BWRAP}
        )
        origin = make_origin(base / "origins" / "acme" / "api.git")
        async with build_worker(client, local):
            await configure_desk(client, local)
            desk = DeskClient(client, local)
            await desk.add_repo(REPO, str(origin))
            steps = (f"hold:{json.dumps(STATUS)}", f"hold:{json.dumps(PUSH)}", "write:p.txt=1")
            number = await desk.start_job(REPO, "push", agent_command=agent(*steps, "commit:p"))
            approvals = ApprovalsClient(desk.client)
            [ident] = await open_ids(approvals)
            await approvals.answer(ident, Decision.APPROVE, Principal(id=local.owner))
            report = await awaited(desk.wait(number), f"job {number}'s report")
        assert report.confinement == BWRAP, report
        assert report.outcome == JobOutcome.INTEGRATED, report
        assert report.output.count("hold allowed") == 2, report.output
        assert report.tool_calls == 2
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def test_a_sandboxed_call_that_reaches_outside_the_worktree_says_so_on_its_card(
    settings: DeskSettings, client: Client
) -> None:
    # In the sandbox only the worktree is writable: `rm -rf` of a path elsewhere can only fail
    # ("Read-only file system") or touch the sandbox's own /tmp. Its card says so before anyone
    # approves it, as the card of a push from the sandbox says it cannot reach the origin; a
    # held call inside the worktree (`rm -rf .`) has no such words.
    base = Path(tempfile.mkdtemp(prefix="codedesk-holds-", dir="/var/tmp"))
    try:
        local = settings.model_copy(
            update={"home": base / "home", "shelf": base / "shelf", "sandbox": BWRAP}
        )
        origin = make_origin(base / "origins" / "acme" / "api.git")
        outside = base / "keep" / "data"
        outside.mkdir(parents=True)
        away = {"tool": "Bash", "input": {"command": f"rm -rf {outside}"}}
        here = {"tool": "Bash", "input": {"command": "rm -rf ."}}
        async with build_worker(client, local):
            await configure_desk(client, local)
            desk = DeskClient(client, local)
            await desk.add_repo(REPO, str(origin))
            steps = (f"hold-bg:{json.dumps(away)}", f"hold-bg:{json.dumps(here)}")
            number = await desk.start_job(REPO, "clean", agent_command=agent(*steps, "sleep:60"))
            approvals = ApprovalsClient(desk.client)
            states = await eventually(
                approvals.open_approvals, lambda found: len(found) == 2, "both cards"
            )
            by_command = {state.request.input["command"]: state for state in states}
            card = by_command[away["input"]["command"]]
            assert card.request.confined and card.request.outside_sandbox, card.request
            terminal = " ".join(" ".join(plain(approval_card(card, value_chars=200))).split())
            assert "only the job's worktree is writable" in terminal, terminal
            assert '"Read-only file system"' in terminal
            embed = card_embed(card.approval_id, card.request)
            [effect] = [f.value or "" for f in embed.fields if f.name == "If approved"]
            assert "cannot change those paths on this host" in effect, effect
            inside = by_command["rm -rf ."]
            assert inside.request.confined and not inside.request.outside_sandbox
            assert approval_effect(inside.request) == ""
            await desk.cancel(number)
            await awaited(desk.wait(number), f"job {number}'s report")
        assert outside.is_dir()
    finally:
        shutil.rmtree(base, ignore_errors=True)
