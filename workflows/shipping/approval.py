"""The `Approval` workflow: one durable wait for a person's approve, decline or withdraw."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from desk.errors import ApprovalSettledError
    from desk.failures import failure_of
    from desk.holds.approvals import (
        AnswerInput,
        AnswerResult,
        ApprovalOutcome,
        ApprovalRequest,
        ApprovalState,
        Decision,
        IgnoredAnswer,
        OutcomeKind,
        OutcomeWatch,
        WithdrawInput,
    )
    from desk.names import (
        APPROVAL_OUTCOME_UPDATE,
        APPROVAL_STATE_QUERY,
        APPROVAL_WITHDRAW_SIGNAL,
        APPROVAL_WORKFLOW_TYPE,
        IGNORED_MEMO,
    )
    from desk.payloads.surfaces import CardSettled, ThreadCard

from workflows.calls.outbox_calls import send_to_outbox
from workflows.in_flight import CancelledInFlight, heeding_cancel

CANCELLED_NOTE = "The approval was cancelled."


@workflow.defn(name=APPROVAL_WORKFLOW_TYPE)
class Approval:
    """Id `approval-<scope>-<digest>`; the first answer or withdrawal settles it for good."""

    @workflow.init
    def __init__(self, request: ApprovalRequest) -> None:
        self.state = ApprovalState(
            approval_id=workflow.info().workflow_id,
            request=request,
            opened_at=workflow.info().start_time,
        )

    @workflow.run
    async def run(self, request: ApprovalRequest) -> ApprovalOutcome:
        timeout = None
        if request.expires_at is not None:
            timeout = max(request.expires_at - workflow.now(), timedelta(0))
        # A request withdrawn with its start (signal-with-start) is never shown.
        shown = request.place is not None and self.state.outcome is None
        if shown and request.place is not None:
            card = ThreadCard(approval_id=self.state.approval_id, request=request)
            try:
                await heeding_cancel(send_to_outbox(request.place, card))
            except CancelledInFlight:  # the card is shown: it must close, as after any cancel
                if self.state.outcome is None:  # an answer that came meanwhile stands
                    self._settle(OutcomeKind.CANCELLED, note=CANCELLED_NOTE)
        try:
            await workflow.wait_condition(
                lambda: self.state.outcome is not None,
                timeout=timeout,
                timeout_summary="the approval expires",
            )
        except TimeoutError:
            self._settle(OutcomeKind.EXPIRED, note="Nobody answered before the approval expired.")
        except asyncio.CancelledError:
            self._settle(OutcomeKind.CANCELLED, note=CANCELLED_NOTE)
        await workflow.wait_condition(workflow.all_handlers_finished)
        assert self.state.outcome is not None
        if shown and request.place is not None:
            settled = CardSettled(
                approval_id=self.state.approval_id, request=request, outcome=self.state.outcome
            )
            await send_to_outbox(request.place, settled)
        return self.state.outcome

    @workflow.signal
    def approve(self, answer: AnswerInput) -> None:
        self._answer(Decision.APPROVE, answer)

    @workflow.signal
    def decline(self, answer: AnswerInput) -> None:
        self._answer(Decision.DECLINE, answer)

    @workflow.signal(name=APPROVAL_WITHDRAW_SIGNAL)
    def withdraw(self, withdrawal: WithdrawInput) -> None:
        """Withdraw for every caller; after an answer (or a first withdrawal) it changes nothing."""
        if self.state.outcome is None:
            self._settle(OutcomeKind.WITHDRAWN, note=withdrawal.reason)

    @workflow.update
    def answer(self, answer: AnswerInput) -> AnswerResult:
        """Approve or decline, and say whether the answer counted."""
        return self._answer(answer.decision, answer)

    @answer.validator
    def _still_open(self, answer: AnswerInput) -> None:
        self._refuse_if_settled()

    def _refuse_if_settled(self) -> None:
        outcome = self.state.outcome
        if outcome is not None:
            raise failure_of(
                ApprovalSettledError(
                    f"This approval is no longer open: it was {outcome.kind.value}"
                    + (f" by {outcome.by.name or outcome.by.id}" if outcome.by else "")
                    + "."
                )
            )

    @workflow.update(name=APPROVAL_OUTCOME_UPDATE)
    async def outcome(self, watch: OutcomeWatch) -> ApprovalOutcome:
        """Wait until the approval settles and return how: completed in the workflow task that
        settles it, so a watcher learns a recorded answer as soon as the answerer does."""
        await workflow.wait_condition(lambda: self.state.outcome is not None)
        assert self.state.outcome is not None
        return self.state.outcome

    @outcome.validator
    def _not_settled(self, watch: OutcomeWatch) -> None:
        """A settled approval (an earlier round of the same call, still closing) is not watched."""
        self._refuse_if_settled()

    @workflow.query(name=APPROVAL_STATE_QUERY)
    def current(self) -> ApprovalState:
        return self.state

    def _answer(self, decision: Decision, answer: AnswerInput) -> AnswerResult:
        if self.state.outcome is not None:
            return AnswerResult(
                counted=False,
                reason=f"The approval is no longer open: it was {self.state.outcome.kind.value}.",
                outcome=self.state.outcome,
            )
        if not self.state.request.may_answer(answer.by):
            reason = f"{answer.by.name or answer.by.id} may not answer this approval."
            self.state.ignored.append(
                IgnoredAnswer(by=answer.by, decision=decision, reason=reason, at=workflow.now())
            )
            # The memo change is an event of its own: the history shows the answer was ignored.
            workflow.upsert_memo(
                {IGNORED_MEMO: [item.model_dump(mode="json") for item in self.state.ignored]}
            )
            return AnswerResult(counted=False, reason=reason)
        kind = OutcomeKind.APPROVED if decision == Decision.APPROVE else OutcomeKind.DECLINED
        self._settle(kind, by=answer, note="")
        return AnswerResult(counted=True, outcome=self.state.outcome)

    def _settle(self, kind: OutcomeKind, *, by: AnswerInput | None = None, note: str) -> None:
        self.state.outcome = ApprovalOutcome(
            kind=kind,
            approval_id=self.state.approval_id,
            by=by.by if by else None,
            card_id=by.card_id if by else "",
            at=workflow.now(),
            note=note,
        )
