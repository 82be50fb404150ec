"""The `HostCheck` workflow: `codedesk doctor` asks a worker's host about itself."""

from __future__ import annotations

from temporalio import workflow
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.checks.host_checks import HostActivities
    from desk.payloads.jobs import HostReport, HostReportInput
    from workflows.policies import HOST_CHECK_STEP


@workflow.defn(name="HostCheck")
class HostCheck:
    """Id `host-check-<uuid>`: one report of the host that runs the activity."""

    @workflow.run
    async def run(self, request: HostReportInput) -> HostReport:
        return await workflow.execute_activity_method(
            HostActivities.host_report,
            request,
            **(HOST_CHECK_STEP | ActivityConfig(summary="reading the host's report")),
        )
