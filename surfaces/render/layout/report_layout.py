"""The job report and the change report, each laid out once for every target."""

from __future__ import annotations

from desk.config.basics.dates import shown_date
from desk.config.basics.durations import format_duration
from desk.holds.approvals import HeldCall, HeldNote, HoldVerdict
from desk.payloads.jobs import JobOutcome, JobReport
from desk.payloads.result_payloads import DeliveryStatus, DeliveryView, HookView
from desk.payloads.ship_payloads import ChangeReport
from surfaces.render.blocks import (
    Block,
    Span,
    Tone,
    code,
    cut_mark,
    field,
    heading,
    item,
    joined,
    line,
    name,
    ours,
    text,
)
from surfaces.render.layout.report_reasons import report_reason
from surfaces.render.layout.ship_request_layout import ship_requests
from surfaces.render.layout.work_rounds.attempts_layout import attempts_blocks
from surfaces.render.layout.work_rounds.budget_layout import pause_lines
from surfaces.render.layout.work_rounds.check_layout import check_blocks, check_round_blocks
from surfaces.render.layout.work_rounds.review_layout import review_blocks
from surfaces.render.layout.work_rounds.usage_words import usage_words
from surfaces.render.words.message_words import message_blocks

OUTCOME_TONE = {
    JobOutcome.INTEGRATED: Tone.GOOD,
    JobOutcome.NOTHING: Tone.WARN,
    JobOutcome.CANCELLED: Tone.WARN,
    JobOutcome.DISCARDED: Tone.WARN,
}
TASK_CHARS = 300
DIGEST_CHARS = 12
"""Hex digits of the instructions' digest a report shows: enough to tell two texts apart."""
YOLO_TITLE = "Approved by yolo mode"
VERDICT_WORDS = {
    HoldVerdict.DECLINED: "declined",
    HoldVerdict.WITHDRAWN: "withdrawn",
    HoldVerdict.EXPIRED: "expired",
    HoldVerdict.PENDING: "unanswered",
    HoldVerdict.APPROVED: "approved",
    HoldVerdict.ALLOWED: "allowed",
    HoldVerdict.SHIP_REQUESTED: "approved, for codedesk to push",
}


def session_blocks(report: JobReport, zone: str = "") -> list[Block]:
    """Whether the agent's session is kept for a continuation, until when, or removed."""
    if report.session_removed_at is not None:
        removed = shown_date(report.session_removed_at, zone)
        return [field("session", ours(f"session removed {removed}"))]
    if report.session_kept_until is None:
        return []
    until = shown_date(report.session_kept_until, zone)
    return [field("session", ours(f"session kept until {until}"))]


def job_report(report: JobReport, zone: str = "") -> list[Block]:
    """A job's report: outcome, reason, times (dated in `zone`), branch, commits, files, held
    calls, git state, output."""
    tone = OUTCOME_TONE.get(report.outcome, Tone.BAD)
    blocks = [
        heading(
            ours(f"job {report.number} on "),
            name(report.repo),
            ours(": "),
            ours(report.outcome.value, tone),
        )
    ]
    if report.task:
        blocks.append(field("task", text(_cut(report.task, TASK_CHARS))))
    if report.continues:
        anew = (
            " (its session was gone: a new session, with its task)" if report.continued_anew else ""
        )
        blocks.append(field("continues", ours(f"job {report.continues}{anew}")))
    for title, when in (("started", report.started_at), ("finished", report.finished_at)):
        if when is not None:
            blocks.append(field(title, ours(shown_date(when, zone))))
    reason = report_reason(report)
    if reason:
        blocks.append(line(text(reason)))
    if report.failure_category:
        exit_code = f", exit code {report.exit_code}" if report.exit_code is not None else ""
        blocks.append(field("failure", text(report.failure_category.value), ours(exit_code)))
    if report.branch:
        blocks.append(
            field("branch", name(report.branch), ours(" (kept)" if report.branch_kept else ""))
        )
    if report.confinement:
        unconfined = " (the agent ran unconfined)" if report.confinement == "none" else ""
        blocks.append(field("sandbox", name(report.confinement), ours(unconfined, Tone.WARN)))
    if report.usage is not None and not report.usage.empty:
        blocks.append(field("usage", ours(usage_words(report.usage))))
    if report.instructions is not None:
        digest = report.instructions.digest.removeprefix("sha256:")[:DIGEST_CHARS]
        blocks.append(
            field("instructions", text(report.instructions.name), ours(f" (sha256 {digest})"))
        )
    if report.branch_kept and report.worktree:
        blocks.append(field("worktree", name(report.worktree)))
    blocks += session_blocks(report, zone)
    blocks += check_blocks(report.check)
    blocks += check_round_blocks(report.check_rounds)
    if report.head:
        blocks.append(field("clone HEAD", name(report.head)))
    if report.commits:
        blocks.append(field(f"commits ({len(report.commits) + report.commits_omitted})"))
        blocks += [item(name(c.sha[:12]), ours(" "), text(c.subject)) for c in report.commits]
        if report.commits_omitted:
            blocks.append(item(ours(f"… and {report.commits_omitted} more")))
    for title, files in (
        ("conflicting files", report.conflict_files),
        ("uncommitted files", report.uncommitted),
        ("files the set-up left (not the agent's, not integrated)", report.setup_files),
    ):
        if files:
            blocks.append(field(title, *joined(name(path) for path in files)))
    blocks += message_blocks(report.messages, report.messages_omitted, zone)
    blocks += review_blocks(report.review_rounds, zone)
    blocks += attempts_blocks(report.attempts)
    blocks += held_calls(report.held_calls, report.held_calls_omitted)
    blocks += held_calls(report.yolo_approved, report.yolo_approved_omitted, YOLO_TITLE)
    blocks += ship_requests(report.ship_requests, report.branch_pushes)
    if report.budget_pauses:
        blocks.append(field(f"budget pauses ({len(report.budget_pauses)})"))
        blocks += [item(ours(said)) for said in pause_lines(report.budget_pauses)]
    if report.extended_by:
        extended = (
            f"the budget was extended by {format_duration(report.extended_by)} (long-running mode)"
        )
        blocks.append(field("long-running", ours(extended)))
    if report.git_state:
        blocks += [field("git state"), code(report.git_state.rstrip())]
    if report.output:
        earlier: tuple[Span, ...] = ()
        if report.output_cut:
            earlier = (ours(f"{report.output_cut} earlier characters cut", Tone.DIM),)
            if report.log_path:
                earlier += (ours("; whole log: ", Tone.DIM), name(report.log_path, Tone.DIM))
        blocks.append(field("agent output", *earlier))
        blocks.append(code(report.output.rstrip()))
    return blocks


HELD_NOTE_WORDS = {
    HeldNote.APPROVED_LATE: (
        "Approved after the agent's hook gave up waiting; no later identical call used it."
    ),
    HeldNote.APPROVED_LATE_USED: (
        "Approved after the agent's hook gave up; honoured once by the next same call."
    ),
    HeldNote.UNANSWERED_AT_END: "Nobody answered before the job ended.",
    HeldNote.LATE_APPROVAL_WITHDRAWN: (
        "Approved after the agent's hook gave up, then withdrawn before any call used it."
    ),
}
"""The job's word on a held call, as the report says it."""


def held_calls(calls: list[HeldCall], omitted: int = 0, title: str = "held calls") -> list[Block]:
    """The calls a person declined, withdrew or never answered (or that yolo mode approved):
    one entry per call."""
    seen: set[str] = set()
    entries = []
    for call in calls:
        key = call.approval_id or f"{call.tool}\0{call.summary}"
        if key in seen:
            continue  # a call cancelled while it waited is recorded twice: it is one call
        seen.add(key)
        parts: list[Span] = []
        if call.tool:
            parts += [name(call.tool), ours(" ")]
        verdict = VERDICT_WORDS.get(call.verdict, call.verdict.value)
        parts += [ours(verdict, _verdict_tone(call.verdict)), ours(": "), text(call.summary)]
        if call.summary_cut:  # cut to the host's report_held_chars: say how much
            parts.append(ours(cut_mark(call.summary_cut), Tone.DIM))
        said = HELD_NOTE_WORDS.get(call.note_kind, "")
        if said:
            parts += [ours(f" ({said})")]
        if call.note:
            parts += [ours(" ("), text(call.note), ours(")")]
        entries.append(item(*parts))
    if not entries:
        return []
    more = [item(ours(f"… and {omitted} more"))] if omitted else []
    return [field(f"{title} ({len(entries) + omitted})"), *entries, *more]


def change_report(made: ChangeReport) -> list[Block]:
    """What a push of the clone's HEAD would ship."""
    total = len(made.commits) + made.commits_omitted
    blocks = [
        heading(
            name(made.repo),
            ours(f": {total} commit(s) ahead of "),
            name(f"origin/{made.default_branch}"),
        ),
        field("HEAD", name(made.head)),
        field(
            "branch",
            name(made.default_branch),
            ours(" (remote at "),
            name(made.remote_tip[:12]),
            ours(")"),
        ),
        field("destination", name(made.destination)),
        field("commits"),
        *(item(name(c.sha[:12]), ours(" "), text(c.subject)) for c in made.commits),
    ]
    if made.commits_omitted:
        blocks.append(item(ours(f"… and {made.commits_omitted} more")))
    blocks.append(field("files"))
    blocks += [item(ours(f"+{f.added} -{f.deleted} "), name(f.path)) for f in made.files]
    if made.files_omitted:
        blocks.append(item(ours(f"… and {made.files_omitted} more")))
    return blocks


def _verdict_tone(verdict: HoldVerdict) -> Tone:
    good = (HoldVerdict.APPROVED, HoldVerdict.ALLOWED, HoldVerdict.SHIP_REQUESTED)
    return Tone.GOOD if verdict in good else Tone.BAD


def _cut(value: str, limit: int) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


def delivery_lines(view: DeliveryView) -> list[str]:
    """Where a result's delivery to each of the host's hooks is, a line each."""
    return [f"result {hook.hook.value}: {_hook_state(hook)}" for hook in view.hooks]


def _hook_state(hook: HookView) -> str:
    if hook.status == DeliveryStatus.DELIVERED:
        return "delivered"
    if hook.status == DeliveryStatus.GAVE_UP:
        return f"given up after the host's window ({hook.error})"
    if hook.attempts > 1 or hook.error:
        return f"trying again, attempt {hook.attempts} ({hook.error})"
    return "delivering"
