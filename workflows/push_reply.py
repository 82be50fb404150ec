"""The signal by which a `Repo` entity answers a `Ship`'s push request (see integration_reply)."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.shipping import PushResult


class AwaitsPush:
    """Mixed into `Ship`: the repository's answer once the push ran or was refused."""

    push_result: PushResult | None = None

    @workflow.signal
    def push_finished(self, result: PushResult) -> None:
        self.push_result = result
