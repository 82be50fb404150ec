"""An expected refusal from an activity is one line in the worker's log, not a traceback.

The SDK logs every failed activity with its traceback, at WARNING, unless the failure is benign
(`ApplicationErrorCategory.BENIGN`, set by `desk.failures.failure_of` for the error tree's
expected refusals): then only at DEBUG, so the worker's terminal shows nothing at all. A
refusal is what a person asked for going wrong (a clone source that is not there, a repository
already on the shelf, a full queue): the worker's owner sees it as one line naming the
activity, its workflow and the message, as the person who asked sees it.
"""

from __future__ import annotations

import logging
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory
from temporalio.worker import (
    ActivityInboundInterceptor,
    ExecuteActivityInput,
    Interceptor,
)

log = logging.getLogger("codedesk.worker")


def refusal_line(activity_type: str, workflow_id: str, failure: ApplicationError) -> str:
    """The one line a refusal logs: what refused, for which workflow, and the refusal's words."""
    where = f" for {workflow_id}" if workflow_id else ""
    kind = f" ({failure.type})" if failure.type else ""
    text = " ".join(failure.message.split())
    return f"Refused{kind}: {activity_type}{where}: {text}"


class _RefusalsInOneLine(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        try:
            return await super().execute_activity(input)
        except ApplicationError as failure:
            if failure.category == ApplicationErrorCategory.BENIGN:
                info = activity.info()
                log.warning(refusal_line(info.activity_type, info.workflow_id or "", failure))
            raise


class RefusalLog(Interceptor):
    """A worker interceptor: each benign activity failure logs `refusal_line` at WARNING."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _RefusalsInOneLine(next)
