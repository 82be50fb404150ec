"""Turn desk errors into activity failures that keep their type and message."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from desk.errors import EXPECTED_REFUSALS, DeskError, GitBusyError


@contextmanager
def desk_failures() -> Iterator[None]:
    """Inside an activity: a DeskError becomes `ApplicationError(type=<class name>)`.

    A retry cannot fix a bad name or an existing clone, so these fail at once; a git failure
    that passes (GitBusyError: a held lock, a busy file) and anything else (a crash, a lost
    connection) are left to Temporal's retry policy. An expected refusal (a clone that is
    missing or exists, a refused push) is benign: the worker logs it without a traceback.
    """
    try:
        yield
    except GitBusyError as error:
        raise ApplicationError(str(error), type=type(error).__name__) from None
    except DeskError as error:
        category = (
            ApplicationErrorCategory.BENIGN
            if isinstance(error, EXPECTED_REFUSALS)
            else ApplicationErrorCategory.UNSPECIFIED
        )
        raise ApplicationError(
            str(error), type=type(error).__name__, non_retryable=True, category=category
        ) from None
