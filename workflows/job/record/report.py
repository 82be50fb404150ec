"""The job's report, assembled from what each step returned, and its cost told to visibility.

`build_report` is pure; `say_cost` sets the `CodedeskCostUsd` search attribute, by which
`codedesk jobs`, `codedesk spend` and the Temporal UI list finished jobs.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.names import COST_ATTRIBUTE
    from desk.payloads.jobs import (
        AgentResult,
        FailureKind,
        IntegrationResult,
        JobInput,
        JobOutcome,
        JobReport,
        ReasonKind,
        Worktree,
    )
    from desk.usage.tally import USD

from workflows import patches


def build_report(
    job: JobInput,
    outcome: JobOutcome,
    *,
    reason: str = "",
    worktree: Worktree | None = None,
    agent: AgentResult | None = None,
    integration: IntegrationResult | None = None,
    kind: ReasonKind | None = None,
    category: FailureKind = FailureKind.NONE,
) -> JobReport:
    """The `JobReport` of `job` ending with `outcome`, why as `kind` (the surface words it) or
    as the words a step gave (`reason`)."""
    report = JobReport(
        number=job.number,
        repo=job.repo,
        task=job.task,
        outcome=outcome,
        reason=reason,
        reason_kind=kind if kind is not None or integration is None else integration.reason_kind,
        failure_category=category,
    )
    if worktree is not None:
        report.branch, report.worktree, report.base = (
            worktree.branch,
            worktree.path,
            worktree.base,
        )
    if agent is not None:
        report.exit_code = agent.exit_code
        report.output, report.output_cut = agent.output, agent.output_cut
        report.log_path, report.agent_attempts = agent.log_path, agent.attempts
        report.tool_calls = agent.tool_calls
        report.agent_resumed, report.agent_started_over = agent.resumed, agent.started_over
        report.confinement = agent.confinement
        report.instructions = agent.instructions
        report.usage = agent.usage
        report.session_id = agent.session_id
    if integration is not None:
        report.head = integration.head
        report.commits, report.commits_omitted = (
            integration.commits,
            integration.commits_omitted,
        )
        report.uncommitted = integration.uncommitted
        report.setup_files = integration.setup_files
        report.conflict_files = integration.conflict_files
        report.branch_kept = integration.branch_kept
        report.git_state = integration.git_state
    return report


def say_cost(report: JobReport) -> None:
    """Set the job's cost attribute when its agent's usage has a known cost in dollars."""
    usage = report.usage
    if usage is None or usage.cost is None or usage.currency != USD:
        return
    workflow.deprecate_patch(patches.JOB_COST_ATTRIBUTE)
    workflow.upsert_search_attributes([COST_ATTRIBUTE.value_set(float(usage.cost))])
