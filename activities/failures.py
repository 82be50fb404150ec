"""Turn desk errors into non-retryable activity failures that keep their type and message."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from desk.errors import EXPECTED_REFUSALS, DeskError


@contextmanager
def desk_failures() -> Iterator[None]:
    """Inside an activity: a DeskError becomes `ApplicationError(type=<class name>)`.

    A retry cannot fix a bad name or an existing clone, so these fail at once; anything else
    (a crash, a lost connection) is left to Temporal's retry policy. An expected refusal (a
    clone that is missing or exists, a refused push) is benign: the worker logs it without a
    traceback, as the answer it is rather than as a fault.
    """
    try:
        yield
    except DeskError as error:
        category = (
            ApplicationErrorCategory.BENIGN
            if isinstance(error, EXPECTED_REFUSALS)
            else ApplicationErrorCategory.UNSPECIFIED
        )
        raise ApplicationError(
            str(error), type=type(error).__name__, non_retryable=True, category=category
        ) from None
