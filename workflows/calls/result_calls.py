"""Starting a result's delivery from the workflow whose result it is, by the delivery's names
only (the job does not build the `ResultDelivery` module in its sandbox)."""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import FailureError

with workflow.unsafe.imports_passed_through():
    from desk.names import RESULT_DELIVERY_WORKFLOW_TYPE, result_delivery_workflow_id
    from desk.payloads.jobs import JobReport
    from desk.payloads.result_payloads import DeliveryInput, ResultAsked, ResultEvent
    from desk.payloads.ship_payloads import PushResult
    from desk.policy.result_hooks import ResultHooks

from workflows.calls.children import start_entity


async def deliver_result(
    hooks: ResultHooks | None,
    subject: str,
    result: JobReport | PushResult,
    asked: ResultAsked | None = None,
) -> None:
    """Hand `result`, and who `asked` for it where, to the host's result hooks (none: nothing
    happens), in a `ResultDelivery` that outlives this workflow. Its delivery id is this
    workflow run's, the same on every attempt. Never raises: a receiver must not fail what it
    is told of."""
    if hooks is None or not hooks.hooks:
        return
    event = ResultEvent.JOB if isinstance(result, JobReport) else ResultEvent.PUSH
    info = workflow.info()
    delivery = DeliveryInput(
        delivery_id=f"{info.workflow_id}/{info.run_id}",
        event=event,
        hooks=hooks,
        report=result if isinstance(result, JobReport) else None,
        push=result if isinstance(result, PushResult) else None,
        asked=asked or ResultAsked(),
    )
    try:
        await start_entity(
            RESULT_DELIVERY_WORKFLOW_TYPE,
            delivery,
            id=result_delivery_workflow_id(event.value, subject),
        )
    except FailureError as error:
        workflow.logger.warning("Could not start the delivery of %s: %s", subject, error)
