"""What a finished job cost, as a search attribute: `codedesk jobs`, `codedesk spend` and the
Temporal UI list jobs by it (`CodedeskCostUsd`)."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.names import COST_ATTRIBUTE
    from desk.payloads.jobs import JobReport
    from desk.usage.tally import USD

COST_ATTRIBUTE_PATCH = "job-cost-attribute"
"""Patch: a job that ends with a known cost says it in its search attributes."""


def say_cost(report: JobReport) -> None:
    """Set the job's cost attribute when its agent's usage has a known cost in dollars."""
    usage = report.usage
    if usage is None or usage.cost is None or usage.currency != USD:
        return
    if workflow.patched(COST_ATTRIBUTE_PATCH):
        workflow.upsert_search_attributes([COST_ATTRIBUTE.value_set(float(usage.cost))])
