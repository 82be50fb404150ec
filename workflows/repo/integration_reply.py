"""The signal by which a `Repo` entity answers a job's integration request.

It lives in a base class of its own so that `Repo` can signal jobs and jobs can signal `Repo`
without the two workflow modules importing each other.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.payloads.jobs import IntegrationResult

from workflows.job.state import JobState


class AwaitsIntegration:
    """Mixed into a workflow that asks a `Repo` entity to integrate and waits for the answer."""

    state: JobState

    @workflow.signal
    def integration_finished(self, result: IntegrationResult) -> None:
        """The `Repo` entity's answer to this workflow's integration request: the first one
        counts (a withdrawal that crossed the answer on its way is answered withdrawn after it)."""
        if self.state.integration is None:
            self.state.integration = result
