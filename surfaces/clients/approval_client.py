"""What surfaces ask of approvals: list the open ones, answer one, withdraw one."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from datetime import timedelta

from temporalio.client import (
    Client,
    WorkflowFailureError,
    WorkflowQueryFailedError,
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
    CallWithdrawal,
    CallWithdrawalKind,
    Decision,
    Principal,
    WithdrawCall,
    WithdrawInput,
    approval_scope,
)
from desk.names import (
    JOB_ID_PREFIX,
    JOB_STATE_QUERY,
    JOB_WITHDRAW_CALL_UPDATE,
    JOB_WORKFLOW_TYPE,
    PUSH_ID_PREFIX,
)
from desk.payloads.jobs import JobStatus
from desk.payloads.ship_payloads import PushResult
from surfaces.clients.listings.approval_listing import OPEN, open_page, open_states, opened_at
from surfaces.clients.listings.page import Page
from surfaces.clients.listings.worker_check import live_pollers, no_worker, require_worker
from workflows.shipping.approval import Approval
from workflows.shipping.ship import Ship


@dataclass
class Followed:
    """What an answered approval led to, as far as a surface could tell (all empty: nothing)."""

    state: ApprovalState | None = None
    asker: str = ""
    """The workflow that asked for the approval: a job (`job-7`) or a push (`push-…`)."""
    push: PushResult | None = None
    """The push's result, when the asker is a push that ended within the wait."""


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

    async def followed(self, ident: str, wait: timedelta) -> Followed:
        """What a counted answer to `ident` led to, as far as is known within `wait`: the
        approval's request, who asked (a job or a push), and a push's result once it has one."""
        handle = self.client.get_workflow_handle_for(Approval.run, ident)
        try:
            described = await handle.describe()
            state = await handle.query(Approval.current, rpc_timeout=ANSWER_TIMEOUT)
        except (RPCError, WorkflowQueryFailedError):
            return Followed()
        asker = described.parent_id or ""
        followed = Followed(state=state, asker=asker)
        if asker.startswith(PUSH_ID_PREFIX):
            ship = self.client.get_workflow_handle_for(Ship.run, asker)
            try:
                async with asyncio.timeout(wait.total_seconds()):
                    followed.push = await ship.result()
            except (TimeoutError, WorkflowFailureError, RPCError):
                followed.push = None  # not known in time: the surface says where to see it
        return followed

    async def withdraw(self, ident: str, reason: str, by: str) -> None:
        handle = self.client.get_workflow_handle_for(Approval.run, ident)
        try:
            await handle.signal(Approval.withdraw, WithdrawInput(reason=reason, by=by))
        except RPCError as error:
            raise ApprovalNotFoundError(_closed(error, ident)) from None

    async def withdraw_call(self, given: str, reason: str, by: str) -> CallWithdrawal:
        """Withdraw the call `given` names, as `codedesk withdraw` does.

        An open approval is withdrawn for every caller waiting on it (its job then refuses an
        identical call as withdrawn). A job's call whose approval is closed is withdrawn by its
        job: one approved after its hook gave up, and not used yet, is forgotten (`given` may
        name it by a unique part, as the job's status lists it); any other is answered as it
        stands. Fails closed: what cannot be reached is an error, never a silent success.
        """
        if self.task_queue:
            await require_worker(self.client, self.task_queue)
        open_ids = [item.id async for item in self.client.list_workflows(OPEN)]
        try:
            ident = match_approval(given, open_ids)
        except ApprovalNotFoundError:
            ident = match_approval(given, await self._late_approvals())
        if ident in open_ids:
            try:
                await self.withdraw(ident, reason, by)
                return CallWithdrawal(approval_id=ident, kind=CallWithdrawalKind.WITHDRAWING)
            except ApprovalNotFoundError:
                pass  # it settled meanwhile: its job says what stands
        scope = approval_scope(ident)
        if not scope.startswith(JOB_ID_PREFIX):
            await self.withdraw(ident, reason, by)  # a push's approval: open, or an error
            return CallWithdrawal(approval_id=ident, kind=CallWithdrawalKind.WITHDRAWING)
        job = self.client.get_workflow_handle(scope)
        try:
            done: CallWithdrawal = await job.execute_update(
                JOB_WITHDRAW_CALL_UPDATE,
                WithdrawCall(approval_id=ident, reason=reason, by=by),
                result_type=CallWithdrawal,
                rpc_timeout=ANSWER_TIMEOUT,
            )
        except (RPCError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError):
            raise ApprovalNotFoundError(
                f"Approval {ident} is no longer open, and {scope} did not take the withdrawal "
                "(it has ended, or no worker answered): a job that has ended runs none of its "
                "calls any more; `codedesk show` of the job says what ran."
            ) from None
        return done

    async def _late_approvals(self) -> list[str]:
        """The approvals running jobs keep for their next identical call (approved after the
        hook gave up), as each job's status lists them."""
        query = f"WorkflowType = '{JOB_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'"
        found: list[str] = []
        async for job in self.client.list_workflows(query):
            handle = self.client.get_workflow_handle(job.id)
            try:
                status: JobStatus = await handle.query(
                    JOB_STATE_QUERY, result_type=JobStatus, rpc_timeout=ANSWER_TIMEOUT
                )
            except (RPCError, WorkflowQueryFailedError):
                continue
            found += status.late_approvals
        return found


def match_approval(given: str, open_ids: list[str]) -> str:
    """The one id among `open_ids` that `given` names, or an ApprovalNotFoundError.

    `given` is a whole id or a unique part of one, from anywhere in it (`job-7`, `acme/api`, a
    few digits of its digest), with or without `approval-`. A part must reach past the id's
    lead (`approval-job-`): `job` or `push` alone names nothing. A number in the scope is
    matched whole: `job-1` is no part of job 12's ids, so a slip never answers another job's
    call. Several matches list the candidates.
    """
    if given in open_ids:
        return given
    found = [ident for ident in open_ids if _names(given, ident)]
    if len(found) == 1:
        return found[0]
    if not found:
        full = given if given.startswith(APPROVAL_ID_PREFIX) else APPROVAL_ID_PREFIX + given
        if FULL_ID.fullmatch(full):
            return full  # a whole id, settled: answering it says it no longer counts
        raise ApprovalNotFoundError(
            f"No open approval has {given!r} in its id: give a whole approval id or a unique "
            "part of one (e.g. job-7, or a few characters of its end); `codedesk approvals` "
            "lists the open ones."
        )
    raise ApprovalNotFoundError(
        f"{given!r} matches {len(found)} open approvals ({', '.join(sorted(found))}): "
        "give more of the id."
    )


def _names(part: str, ident: str) -> bool:
    """Whether `part` occurs in `ident` past its lead, cutting none of its scope's numbers."""
    scope_end = len(ident) - DIGEST_CHARS
    lead = ident.find("-", len(APPROVAL_ID_PREFIX)) + 1
    start = ident.find(part) if part else -1
    while start >= 0:
        end = start + len(part)
        cuts = _cuts_a_number(ident, start, scope_end) or _cuts_a_number(ident, end, scope_end)
        if end > lead and not cuts:
            return True
        start = ident.find(part, start + 1)
    return False


def _cuts_a_number(ident: str, at: int, scope_end: int) -> bool:
    """Whether a boundary at `at` falls between two digits of the scope (`job-1|2`)."""
    return 0 < at < scope_end and ident[at - 1].isdigit() and ident[at].isdigit()


def _closed(error: RPCError, ident: str) -> str:
    if error.status == RPCStatusCode.NOT_FOUND or "completed" in str(error).lower():
        return f"Approval {ident} is no longer open (or never existed)."
    return f"Approval {ident} could not be reached: {error}"
