"""What surfaces ask of approvals: list the open ones, answer one, withdraw one."""

from __future__ import annotations

import re
from datetime import timedelta

from temporalio.client import (
    Client,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from desk.errors import ApprovalNotFoundError
from desk.holds.approvals import (
    APPROVAL_ID_PREFIX,
    AnswerInput,
    AnswerResult,
    ApprovalState,
    Decision,
    Principal,
    WithdrawInput,
)
from surfaces.clients.approval_listing import OPEN, open_page, open_states, opened_at
from surfaces.clients.listing import Page
from surfaces.clients.worker_check import live_pollers, no_worker, require_worker
from workflows.approval import Approval

FULL_ID = re.compile(rf"{APPROVAL_ID_PREFIX}.+-[0-9a-f]{{16}}")
"""A whole approval id: `approval-<scope>-<digest>`, whether or not it is still open."""

DIGEST_CHARS = len("-") + 16
"""The end of every approval id: a dash and 16 hex digits of the call's digest."""

ANSWER_TIMEOUT = timedelta(seconds=5)
"""How long an answer waits for a worker before it is sent as a durable signal instead."""


class ApprovalsClient:
    """Approvals through one Temporal client; with the desk's `task_queue`, a command that needs
    a worker says at once when none polls it instead of waiting for a timeout."""

    def __init__(self, client: Client, task_queue: str = "") -> None:
        self.client = client
        self.task_queue = task_queue

    async def worker_polling(self) -> bool:
        return not self.task_queue or bool(await live_pollers(self.client, self.task_queue))

    async def open_approvals(self) -> list[ApprovalState]:
        """Every approval still waiting for an answer, oldest first."""
        if self.task_queue:
            await require_worker(self.client, self.task_queue)
        states = await self._states([item.id async for item in self.client.list_workflows(OPEN)])
        return sorted(states, key=opened_at)

    async def open_page(self, limit: int) -> Page[ApprovalState]:
        """The `limit` newest open approvals, newest first, and how many are open in all."""
        return await open_page(
            self.client.workflow_service, self.client.namespace, self.task_queue, limit
        )

    async def _states(self, idents: list[str]) -> list[ApprovalState]:
        """The state of each approval that is still open, asked a few at a time."""
        return await open_states(self.client.workflow_service, self.client.namespace, idents)

    async def resolve(self, given: str) -> str:
        """The full id of the one open approval `given` names (see `match_approval`)."""
        return match_approval(given, [item.id async for item in self.client.list_workflows(OPEN)])

    async def answer(
        self, ident: str, decision: Decision, by: Principal, card: str = ""
    ) -> tuple[AnswerResult, bool]:
        """Answer by Update; with no worker in time, by signal. Returns (result, by_signal).

        `card` is where the answer was given, recorded in the approval's outcome: the card a
        surface shows it on (`discord:<message id>`); the CLI's answer is `cli:<approval id>`.
        """
        handle = self.client.get_workflow_handle_for(Approval.run, ident)
        answer = AnswerInput(by=by, decision=decision, card_id=card or f"cli:{ident}")
        signal = Approval.approve if decision == Decision.APPROVE else Approval.decline
        if not await self.worker_polling():
            try:
                await handle.signal(signal, answer)
            except RPCError as error:
                return AnswerResult(counted=False, reason=_closed(error, ident)), False
            return AnswerResult(counted=False, reason=no_worker(self.task_queue)), True
        try:
            result = await handle.execute_update(
                Approval.answer, answer, rpc_timeout=ANSWER_TIMEOUT
            )
            return result, False
        except WorkflowUpdateFailedError as error:
            cause = error.cause
            reason = cause.message if isinstance(cause, ApplicationError) else str(error)
            return AnswerResult(counted=False, reason=reason), False
        except WorkflowUpdateRPCTimeoutOrCancelledError:
            await handle.signal(signal, answer)
            return AnswerResult(counted=False, reason="No worker answered in time."), True
        except RPCError as error:
            return AnswerResult(counted=False, reason=_closed(error, ident)), False

    async def withdraw(self, ident: str, reason: str, by: str) -> None:
        handle = self.client.get_workflow_handle_for(Approval.run, ident)
        try:
            await handle.signal(Approval.withdraw, WithdrawInput(reason=reason, by=by))
        except RPCError as error:
            raise ApprovalNotFoundError(_closed(error, ident)) from None


def match_approval(given: str, open_ids: list[str]) -> str:
    """The one id among `open_ids` that `given` names, or an ApprovalNotFoundError.

    `given` is a whole id or a prefix of one, with or without its `approval-` start, that
    covers at least the approval's scope (`job-7`, `push-acme/api`): `job` or `job-1` name
    no approval of job 12, so a slip can never answer another job's call. Nothing else
    matches: no substrings. Several matches list the candidates.
    """
    full = given if given.startswith(APPROVAL_ID_PREFIX) else APPROVAL_ID_PREFIX + given
    if full in open_ids:
        return full
    found = [ident for ident in open_ids if ident.startswith(full) and _covers_scope(full, ident)]
    if len(found) == 1:
        return found[0]
    if not found:
        if FULL_ID.fullmatch(full):
            return full  # a whole id, settled: answering it says it no longer counts
        raise ApprovalNotFoundError(
            f"No open approval starts with {given!r}: give a whole approval id, or its start "
            "up to at least its scope (e.g. job-7); `codedesk approvals` lists the open ones."
        )
    raise ApprovalNotFoundError(
        f"{given!r} matches {len(found)} open approvals ({', '.join(sorted(found))}): "
        "give more of the id."
    )


def _covers_scope(prefix: str, ident: str) -> bool:
    """Whether `prefix` reaches at least the end of `ident`'s scope (`approval-<scope>`)."""
    return len(prefix) >= len(ident) - DIGEST_CHARS


def _closed(error: RPCError, ident: str) -> str:
    if error.status == RPCStatusCode.NOT_FOUND or "completed" in str(error).lower():
        return f"Approval {ident} is no longer open (or never existed)."
    return f"Approval {ident} could not be reached: {error}"
