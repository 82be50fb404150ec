"""Why a job ended, in words: the one sentence its report opens with, for every target."""

from __future__ import annotations

from typing import assert_never

from desk.config.basics.durations import format_duration
from desk.payloads.jobs import JobReport, ReasonKind


def report_reason(report: JobReport) -> str:
    """`The agent exited with code 3.`: plain words, for every target to lay out.

    A report without `reason_kind` (of an earlier version, or whose words a step gave) says its
    `reason` as it is.
    """
    kind = report.reason_kind
    if kind is None:
        return report.reason
    match kind:
        case ReasonKind.CANCELLED_QUEUED:
            return "Cancelled while queued: it never ran."
        case ReasonKind.CANCELLED_BEFORE_AGENT:
            return "Cancelled before the agent ran."
        case ReasonKind.CANCELLED:
            return "Cancelled."
        case ReasonKind.ACTIVITY_FAILED:
            return f"The agent activity failed: {report.reason}"
        case ReasonKind.OUT_OF_TIME:
            return _out_of_time(report)
        case ReasonKind.EXITED:
            return f"The agent exited with code {report.exit_code}."
        case ReasonKind.KILLED:
            code = report.exit_code
            return f"The agent was killed by signal {-code}." if code else "The agent was killed."
        case ReasonKind.INTEGRATION_WITHDRAWN:
            return "Cancelled while waiting to integrate; the branch is kept."
        case ReasonKind.INTEGRATION_WAITED:
            wait = report.integration_wait
            within = f" within {format_duration(wait)}" if wait is not None else " in time"
            return f"The repository did not integrate{within}."
        case ReasonKind.NO_ATTEMPT_READY:
            return "Every attempt ended before its work came to the pick: see each one's report."
        case ReasonKind.ATTEMPT_PICKED:
            return picked_attempt_words(report)
        case _:
            assert_never(kind)


def _out_of_time(report: JobReport) -> str:
    budget = f" of {format_duration(report.budget)}" if report.budget is not None else ""
    said = f"The agent ran past the work-time budget{budget} and was stopped."
    if not report.extended_by:
        return said
    said += f" Long-running mode extended the budget by {format_duration(report.extended_by)}"
    ceiling = report.budget_ceiling
    if ceiling is not None and report.budget is not None:
        if report.budget + report.extended_by >= ceiling:
            return f"{said}, up to its ceiling of {format_duration(ceiling)}."
    return f"{said}."


def picked_attempt_words(report: JobReport) -> str:
    """`Attempt b (job 14, codex) was picked by alice.`"""
    attempts = report.attempts
    if attempts is None or not attempts.picked:
        return "No attempt was picked."
    row = attempts.picked_row()
    if row is None:
        return f"Attempt {attempts.picked} was picked."
    agent = f", {row.agent}" if row.agent else ""
    by = f" by {attempts.picked_by}" if attempts.picked_by else ""
    return f"Attempt {row.label} (job {row.number}{agent}) was picked{by}."
