"""A failure as a person reads it: the message of what went wrong, never an exception's class.

`str()` of a Temporal `ApplicationError` starts with its type ("CloneMissingError: ..."), and
an `ActivityError` or `ChildWorkflowError` only wraps the failure that says what happened.
"""

from __future__ import annotations

from temporalio.exceptions import ActivityError, ChildWorkflowError, FailureError


def reason_of(error: BaseException | None) -> str:
    """The message of the innermost failure that says what went wrong."""
    while isinstance(error, ActivityError | ChildWorkflowError) and error.cause is not None:
        error = error.cause
    if isinstance(error, FailureError):
        return error.message
    return str(error) if error is not None else ""
