"""The signals by which a `Repo` entity answers a `Ship` (see integration_reply)."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.payloads.shipping import PushResult, PushSuperseded


class AwaitsPush:
    """Mixed into `Ship`: the repository's answer once the push ran or was refused, and its
    word that the clone moved on past the SHA while the push waited for an owner."""

    push_result: PushResult | None = None
    superseded_by: PushSuperseded | None = None

    @workflow.signal
    def push_finished(self, result: PushResult) -> None:
        self.push_result = result

    @workflow.signal
    def superseded(self, notice: PushSuperseded) -> None:
        if self.superseded_by is None:
            self.superseded_by = notice
