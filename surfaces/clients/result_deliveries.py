"""Where results' deliveries to the host's hooks are: one job's (for `show`), and every delivery
whose receiver keeps refusing (for `doctor`). Read from Temporal: the `ResultDelivery`'s own
state, and its pending activities' attempts and last errors."""

from __future__ import annotations

from datetime import timedelta

from temporalio.api.workflow.v1 import PendingActivityInfo
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowQueryFailedError
from temporalio.service import RPCError, RPCStatusCode

from desk.names import RESULT_DELIVERY_WORKFLOW_TYPE, result_delivery_workflow_id
from desk.payloads.result_payloads import DeliveryState, DeliveryStatus, DeliveryView, HookView
from desk.policy.result_hooks import ResultHook

TROUBLED_LISTED = 20
"""Deliveries `doctor` looks at, at most."""

QUERY_WAIT = timedelta(seconds=5)


async def job_delivery(client: Client, number: int) -> DeliveryView | None:
    """Job `number`'s delivery to the result hooks; None when it has none."""
    return await delivery(client, result_delivery_workflow_id("job", str(number)))


async def delivery(client: Client, workflow_id: str) -> DeliveryView | None:
    handle = client.get_workflow_handle(workflow_id, result_type=DeliveryState)
    try:
        described = await handle.describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return None
        raise
    pending = {
        activity.activity_id: activity for activity in described.raw_description.pending_activities
    }
    if described.status == WorkflowExecutionStatus.COMPLETED:
        state = await handle.result()
    else:
        try:
            state = await handle.query("current", result_type=DeliveryState, rpc_timeout=QUERY_WAIT)
        except (RPCError, WorkflowQueryFailedError):  # no worker answers: what the server knows
            hooks = [
                HookView(
                    hook=ResultHook(ident),
                    attempts=attempt.attempt,
                    error=_failure(attempt),
                )
                for ident, attempt in pending.items()
                if ident in ResultHook.__members__.values()
            ]
            return DeliveryView(workflow_id=workflow_id, hooks=hooks)
    hooks = []
    for hook in state.deliveries:
        attempt = pending.get(hook.hook.value)
        if hook.status == DeliveryStatus.TRYING and attempt is not None:
            hooks.append(
                HookView(hook=hook.hook, attempts=attempt.attempt, error=_failure(attempt))
            )
        else:
            hooks.append(HookView(hook=hook.hook, status=hook.status, error=hook.error))
    return DeliveryView(workflow_id=workflow_id, delivery_id=state.delivery_id, hooks=hooks)


def _failure(attempt: PendingActivityInfo) -> str:
    return attempt.last_failure.message if attempt.HasField("last_failure") else ""


async def troubled_deliveries(client: Client) -> list[DeliveryView]:
    """Running deliveries whose receiver refused at least once (the newest first)."""
    query = f"WorkflowType = '{RESULT_DELIVERY_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'"
    found = []
    async for listed in client.list_workflows(query, limit=TROUBLED_LISTED):
        view = await delivery(client, listed.id)
        if view is not None and view.troubled:
            found.append(view)
    return found
