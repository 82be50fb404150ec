"""Desk errors on Temporal's wire: into an `ApplicationError`, and back into their class.

One boundary for activities and workflows alike (workflows import this module passed through
their sandbox: it does no I/O), and one way back for every surface, by the error's wire name.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from desk.errors import DeskError, error_types


def failure_of(error: DeskError) -> ApplicationError:
    """The `ApplicationError` that carries `error`: its wire name, message and retryability.

    A retry cannot fix a bad name or an existing clone, so these fail at once; a passing one
    (`GitBusyError`: a held lock, a busy file) is left to the retry policy. An expected refusal
    (a clone that is missing or exists, a refused push, a full queue) is benign: the worker logs
    it without a traceback.
    """
    category = (
        ApplicationErrorCategory.BENIGN if error.benign else ApplicationErrorCategory.UNSPECIFIED
    )
    return ApplicationError(
        str(error), type=error.wire, non_retryable=not error.retryable, category=category
    )


@contextmanager
def desk_failures() -> Iterator[None]:
    """Inside an activity: a DeskError leaves as its failure (`failure_of`).

    Anything else (a crash, a lost connection) is left to Temporal's retry policy.
    """
    try:
        yield
    except DeskError as error:
        raise failure_of(error) from None


def error_of(failure: BaseException | None) -> DeskError | None:
    """The desk error a failure carries, rebuilt from its wire name; None when it carries none.

    Follows the causes (an update's, a workflow's, an activity's failure) to the first
    `ApplicationError`; one whose type is no desk error's wire name is not a desk error.
    """
    cause = failure
    while cause is not None and not isinstance(cause, ApplicationError):
        cause = cause.__cause__
    if cause is None:
        return None
    kind = error_types().get(cause.type or "")
    return kind(cause.message) if kind is not None else None
