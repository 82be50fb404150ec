"""Timeouts and retry policies the workflows give their activities."""

from __future__ import annotations

from datetime import timedelta

from temporalio.common import RetryPolicy

from desk.errors import NON_RETRYABLE_ERROR_TYPES

GIT_STEP_TIMEOUT = timedelta(minutes=5)
"""One git step (worktree add, rebase and fast-forward, cleanup) on a large clone."""

GIT_HEARTBEAT_TIMEOUT = timedelta(seconds=10)
"""Every git step heartbeats while git runs (clone, prepare, integrate, release, report, push):
a crashed or stalled worker's step is retried this soon, instead of after GIT_STEP_TIMEOUT, and
the retry finds what the dead attempt did (a receipt, a merged tip, a remote at the SHA)."""

HOST_WAIT = timedelta(minutes=1)
"""How long a repository's integration, report or push waits for its host's worker before it
says so (a report is refused; an integration or push keeps waiting)."""

HOLD_ALLOWANCE = timedelta(days=7)
"""How long, beyond its budget, an agent may wait for people's answers before Temporal stops it.

The job's own work clock enforces the budget; this is only the backstop for the activity."""

GIT_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    maximum_interval=timedelta(seconds=30),
    maximum_attempts=10,
    non_retryable_error_types=list(NON_RETRYABLE_ERROR_TYPES),
)
"""A git step is retried when its worker died or stalled (heartbeat timeout) and when git failed
for a reason that passes (`GitBusyError`: a held lock, a busy file), for about two and a half
minutes in all; a failure a retry cannot fix (`GitError`, the other desk errors) fails at once."""

AGENT_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    maximum_interval=timedelta(seconds=10),
    maximum_attempts=5,
    non_retryable_error_types=list(NON_RETRYABLE_ERROR_TYPES),
)
"""A retry of the agent happens only when its worker died; the agent is told it was interrupted."""

ADMISSION_CHECK_TIMEOUT = timedelta(seconds=30)
"""The worker's host checks a new job (shelf, agent program, running push) in well under this."""

ADMISSION_CHECK_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_attempts=3)
"""A job waits for its number while this runs: after three failed checks it is refused."""

POLICY_READ_TIMEOUT = timedelta(seconds=30)
"""Reading the desk's host policy is one query of the `Desk` through a worker."""

POLICY_READ_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    maximum_attempts=5,
    non_retryable_error_types=list(NON_RETRYABLE_ERROR_TYPES),
)
"""A push whose policy cannot be read in about fifteen seconds is refused: it fails closed."""
