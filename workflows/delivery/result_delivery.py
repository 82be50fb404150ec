"""`ResultDelivery`: a job's report or a push's result, delivered to each of the host's result
hooks at least once, however long the receiver is down (within the host's window), whatever
worker dies meanwhile. A receiver that stays down is said in `show` and `doctor`; it never
fails the job or the push, which ended before the delivery started."""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.exceptions import ActivityError
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    from activities.hook_deliveries import ResultActivities
    from desk.names import RESULT_DELIVERY_WORKFLOW_TYPE
    from desk.payloads.result_payloads import (
        DeliveryInput,
        DeliveryRequest,
        DeliveryState,
        DeliveryStatus,
        HookDelivery,
    )

from workflows.policies import result_hook_step


@workflow.defn(name=RESULT_DELIVERY_WORKFLOW_TYPE)
class ResultDelivery:
    """Id `result-job-<n>` or `result-push-<repo>-<sha>`: one result, every hook."""

    @workflow.init
    def __init__(self, delivery: DeliveryInput) -> None:
        self.state = DeliveryState(
            delivery_id=delivery.delivery_id,
            event=delivery.event,
            deliveries=[HookDelivery(hook=hook) for hook in delivery.hooks.hooks],
        )

    @workflow.run
    async def run(self, delivery: DeliveryInput) -> DeliveryState:
        await asyncio.gather(*(self._deliver(delivery, hook) for hook in self.state.deliveries))
        return self.state

    @workflow.query
    def current(self) -> DeliveryState:
        return self.state

    async def _deliver(self, delivery: DeliveryInput, hook: HookDelivery) -> None:
        request = DeliveryRequest(
            hook=hook.hook,
            delivery_id=delivery.delivery_id,
            event=delivery.event,
            report=delivery.report,
            push=delivery.push,
            asked=delivery.asked,
        )
        step = result_hook_step(
            hook.hook.value, delivery.hooks.attempt_timeout, delivery.hooks.window
        )
        try:
            await workflow.execute_activity_method(
                ResultActivities.deliver_result,
                request,
                **(step | ActivityConfig(summary="delivering the result")),
            )
        except ActivityError as error:
            hook.status = DeliveryStatus.GAVE_UP
            hook.error = str(getattr(error.cause, "message", None) or error)
        else:
            hook.status = DeliveryStatus.DELIVERED
        hook.at = workflow.now()
