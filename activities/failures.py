"""Turn desk errors into non-retryable activity failures that keep their type and message."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from temporalio.exceptions import ApplicationError

from desk.errors import DeskError


@contextmanager
def desk_failures() -> Iterator[None]:
    """Inside an activity: a DeskError becomes `ApplicationError(type=<class name>)`.

    A retry cannot fix a bad name or an existing clone, so these fail at once; anything else
    (a crash, a lost connection) is left to Temporal's retry policy.
    """
    try:
        yield
    except DeskError as error:
        raise ApplicationError(str(error), type=type(error).__name__, non_retryable=True) from None
