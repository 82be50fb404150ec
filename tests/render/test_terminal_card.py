"""The terminal shows approvals and reports from the structured payload, never Discord markdown."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from rich.console import Console

from desk.config.settings import DeskSettings
from desk.holds.approvals import (
    ApprovalRequest,
    ApprovalState,
    HeldCall,
    HoldAnswer,
    HoldRequest,
    HoldVerdict,
)
from desk.payloads.jobs import CommitInfo, JobOutcome, JobReport
from surfaces.clients.approval_client import ApprovalsClient
from surfaces.clients.desk_client import DeskClient
from surfaces.render.discord.replies import report_text
from surfaces.render.layout.approval_layout import approval_card
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain, terminal, visible
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from tests.helpers.job_waits import open_ids, working_job
from tests.helpers.waiting import awaited
from workflows.job.coding_job import CodingJob

COMMAND = "git push origin main && rm -rf /etc/**foo** _x_ `y` <@1> [a](b)"
HIDDEN = "\u200b\u202e\x1b[2J\r\t"
HOSTILE = COMMAND + " #" + HIDDEN


def card(command: str, **request: object) -> list[str]:
    state = ApprovalState(
        approval_id="approval-job-7-0123456789abcdef",
        request=ApprovalRequest(
            tool="Bash", input={"command": command}, scope="job-7", classes=["push"], **request
        ),
    )
    return plain(approval_card(state, value_chars=4000))


def test_the_command_is_shown_exactly_with_hidden_characters_spelled_out() -> None:
    lines = card(HOSTILE)
    text = "\n".join(lines)
    assert f"  command: {COMMAND} #\\u200b\\u202e\\u001b[2J\\r\\t" in lines
    for raw in ("\u200b", "\u202e", "\x1b", "\r", "\t"):
        assert raw not in text
    assert "**Approve" not in text and "\\&" not in text and "\\*" not in text
    assert "5 invisible or control characters" in text
    assert "  approve: codedesk approve approval-job-7-0123456789abcdef" in lines


def test_a_plain_command_has_no_note_and_a_multi_line_one_keeps_its_lines() -> None:
    assert not any("invisible" in line for line in card("git push"))
    lines = card("cat <<EOF | sh\ngit push\nEOF")
    start = lines.index("  command:")
    assert lines[start + 1 : start + 4] == ["    cat <<EOF | sh", "    git push", "    EOF"]


def test_a_long_value_is_cut_and_says_how_much() -> None:
    state = ApprovalState(
        approval_id="approval-job-7-0123456789abcdef",
        request=ApprovalRequest(tool="Write", input={"content": "x" * 5000}, scope="job-7"),
    )
    text = "\n".join(plain(approval_card(state, value_chars=1000)))
    assert "x" * 1000 in text and "x" * 1001 not in text
    assert "x" * 1000 + "… [4000 chars]" in text  # the count Discord's card shows too


def test_a_styled_terminal_marks_what_was_spelled_out() -> None:
    console = Console(force_terminal=True, color_system="standard", width=200)
    with console.capture() as captured:
        for line in terminal(approval_card_state(HOSTILE)):
            console.print(line)
    styled = captured.get()
    assert "\x1b[7m\\u200b" in styled  # reverse video: it cannot pass for typed text
    assert "\u200b" not in styled and "\x1b[2J" not in styled


def approval_card_state(command: str) -> list:  # type: ignore[type-arg]
    state = ApprovalState(
        approval_id="approval-job-7-0123456789abcdef",
        request=ApprovalRequest(tool="Bash", input={"command": command}, scope="job-7"),
    )
    return approval_card(state, value_chars=4000)


@pytest.mark.parametrize("brk", ["\r", "\u2028", "\u2029", "\u0085", "\x0b", "\x0c"])
def test_no_value_can_hide_a_line_on_the_terminal(brk: str) -> None:
    # Discord's card makes these line breaks (the seed's rule); the terminal spells them out
    # on the command's line, so the command reads as the one line a shell runs.
    for lines in (card(f"ls{brk}rm -rf /"), card(f"ls\nok{brk}rm -rf /")):
        assert not any(brk in line for line in lines)
        assert any(
            f"ls{visible(brk)}rm -rf /" in line or f"ok{visible(brk)}rm" in line for line in lines
        )


def test_visible_keeps_line_breaks_only_in_code() -> None:
    assert visible("a\nb") == "a\\nb"
    assert visible("a\nb\r", keep_line_breaks=True) == "a\nb\\r"


REPORT = JobReport(
    number=3,
    repo="acme/api",
    task="do **it**",
    outcome=JobOutcome.NOTHING,
    commits=[CommitInfo(sha="a" * 40, subject="fix **x** \u200b")],
    held_calls=[
        HeldCall(tool="Bash", summary="git push", verdict=HoldVerdict.DECLINED, approval_id="p"),
        HeldCall(tool="", summary="approval q", verdict=HoldVerdict.PENDING, approval_id="q"),
        HeldCall(tool="Bash", summary="rm -rf ..", verdict=HoldVerdict.WITHDRAWN, approval_id="q"),
    ],
    output="done",
)


def test_one_report_layout_rendered_for_the_terminal_and_for_discord() -> None:
    lines = plain(job_report(REPORT))
    assert lines[0] == "job 3 on acme/api: nothing"
    assert "    aaaaaaaaaaaa fix **x** \\u200b" in lines
    assert "  held calls (2):" in lines
    assert "    Bash declined: git push" in lines
    assert "    unanswered: approval q" in lines  # one entry per call
    markdown = report_text(REPORT)
    assert markdown.startswith("## Job 3 on `acme/api`: nothing")
    assert "- `Bash` declined: git push" in markdown
    assert "**Held calls (2)**:" in markdown
    assert "fix \\*\\*x\\*\\*" in markdown


async def test_approvals_and_show_print_for_the_terminal(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    number = await working_job(desk, origin)
    held = asyncio.create_task(
        desk.job(number).execute_update(
            CodingJob.hold,
            HoldRequest(tool="Bash", input={"command": HOSTILE}, wait_seconds=60),
        )
    )
    [ident] = await open_ids(ApprovalsClient(desk.client))

    env = settings_env(settings)
    listed = await run_cli(env, "approvals", cwd=tmp_path)
    assert listed.returncode == 0, shown(listed)
    assert f"  command: {COMMAND} #\\u200b\\u202e\\u001b[2J\\r\\t" in listed.stdout, shown(listed)
    assert "**" not in listed.stdout.replace("/etc/**foo**", ""), shown(listed)
    assert "\u200b" not in listed.stdout and "\x1b" not in listed.stdout

    declined = await run_cli(env, "decline", ident, cwd=tmp_path)
    assert declined.returncode == 0, shown(declined)
    answer: HoldAnswer = await awaited(held, "the hold's answer")
    assert answer.verdict == HoldVerdict.DECLINED, answer
    await desk.cancel(number)
    await awaited(desk.wait(number), f"job {number}'s report")
    showed = await run_cli(env, "show", str(number), cwd=tmp_path)
    assert showed.returncode == 0, shown(showed)
    assert "held calls (1):" in showed.stdout, shown(showed)
    assert "    Bash declined: " in showed.stdout, shown(showed)
