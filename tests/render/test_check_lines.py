"""The check of a job's work in its report, as the terminal's plain text and Discord show it."""

from __future__ import annotations

from desk.payloads.jobs import JobOutcome, JobReport
from desk.records.repo_setup import CheckStatus, CommandRun
from surfaces.render.discord.replies import report_text
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain


def report_with(check: CommandRun | None) -> JobReport:
    return JobReport(number=7, repo="acme/api", outcome=JobOutcome.FAILED, check=check)


def test_a_failed_check_shows_its_command_exit_code_and_tail() -> None:
    failed = CommandRun(
        command="npm test",
        status=CheckStatus.FAILED,
        exit_code=1,
        output="1 failing\nexpected 2 to be 3\n",
        output_cut=120,
    )
    lines = "\n".join(plain(job_report(report_with(failed))))
    assert "check: npm test: failed, exit code 1" in lines
    assert "the tail (120 earlier characters cut)" in lines
    assert "expected 2 to be 3" in lines
    assert "expected 2 to be 3" in report_text(report_with(failed))


def test_a_passed_check_shows_no_output_and_a_timed_out_one_says_so() -> None:
    passed = CommandRun(command="make check", status=CheckStatus.PASSED, exit_code=0, output="ok")
    lines = [line.strip() for line in plain(job_report(report_with(passed)))]
    assert "check: make check: passed, exit code 0" in lines
    assert not any("check output" in line for line in lines)
    slow = CommandRun(command="make check", status=CheckStatus.TIMED_OUT, blocks=False)
    assert "check: make check: timed out (not blocking)" in "\n".join(
        plain(job_report(report_with(slow)))
    )


def test_a_report_without_a_check_has_no_check_line() -> None:
    assert not any("check" in line for line in plain(job_report(report_with(None))))


def test_the_card_of_the_push_of_the_work_names_a_failed_check() -> None:
    from desk.holds.approvals import AgentShipAsk, ApprovalRequest
    from surfaces.render.layout.approval_effect import approval_effect

    check = CommandRun(
        command="npm test", status=CheckStatus.FAILED, exit_code=1, output="x\n2 failing\n"
    )
    ask = AgentShipAsk(job=7, approval_id="approval-job-7-a", branch="main", check=check)
    card = ApprovalRequest(tool="push", scope="push-acme/api", agent_ship=ask)
    assert "check `npm test` failed (exit code 1) on this work; its last line: 2 failing" in (
        approval_effect(card)
    )
    unchecked = card.model_copy(update={"agent_ship": ask.model_copy(update={"check": None})})
    assert "check" not in approval_effect(unchecked)
