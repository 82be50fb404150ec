"""The `HostCheck` workflow: `codedesk doctor` asks a worker's host about itself."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.host_check import HostActivities
    from desk.payloads.jobs import HostReport, HostReportInput

HOST_CHECK_TIMEOUT = timedelta(seconds=30)
"""Probing the sandbox and running `git --version` take well under this."""


@workflow.defn(name="HostCheck")
class HostCheck:
    """Id `host-check-<uuid>`: one report of the host that runs the activity."""

    @workflow.run
    async def run(self, request: HostReportInput) -> HostReport:
        return await workflow.execute_activity_method(
            HostActivities.host_report,
            request,
            start_to_close_timeout=HOST_CHECK_TIMEOUT,
            retry_policy=RetryPolicy(maximum_attempts=2),
        )
