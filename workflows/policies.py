"""Timeouts and retry policies the workflows give their activities, as typed configs.

Each step's options are one `workflow.ActivityConfig` (a TypedDict), defined here once and
splatted into the call with the host's route: `execute_activity_method(step, arg, **GIT_STEP,
**route)`. A config names every option the step relies on, so a step never half-inherits the
SDK's defaults by a forgotten keyword.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio.common import RetryPolicy
from temporalio.workflow import ActivityCancellationType, ActivityConfig, LocalActivityConfig

from desk.errors import NON_RETRYABLE_ERROR_TYPES

GIT_STEP_TIMEOUT = timedelta(minutes=5)
"""One git step (worktree add, rebase and fast-forward, cleanup) on a large clone."""

GIT_HEARTBEAT_TIMEOUT = timedelta(seconds=10)
"""Every git step heartbeats while git runs (clone, prepare, integrate, release, report, push):
a crashed or stalled worker's step is retried this soon, instead of after GIT_STEP_TIMEOUT, and
the retry finds what the dead attempt did (a receipt, a merged tip, a remote at the SHA). A
job's own steps (`git_step`) take the host's CODEDESK_GIT_HEARTBEAT_TIMEOUT from the job's input
instead (its default is this); the clone, report, push and session steps keep this one."""

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

SURFACE_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    maximum_interval=timedelta(minutes=1),
    maximum_attempts=20,
)
"""A post that keeps failing is given up (and logged): a chat message never fails a job."""

SURFACE_STEP_TIMEOUT = timedelta(minutes=1)
"""No schedule-to-start timeout is set: while the surface's host is down, a post waits for it."""

SURFACE_HEARTBEAT_TIMEOUT = timedelta(seconds=5)
"""A step heartbeats while it waits on the surface: the step of a host that died (a SIGKILLed
bot) is retried by the next host about this long after its last heartbeat, not a minute."""

# The steps, each defined once.

GIT_STEP = ActivityConfig(
    start_to_close_timeout=GIT_STEP_TIMEOUT,
    heartbeat_timeout=GIT_HEARTBEAT_TIMEOUT,
    retry_policy=GIT_RETRY,
)
"""A shelf step on a clone: prepare, release, discard, integrate, change report, push, list."""


def git_step(heartbeat_timeout: timedelta) -> ActivityConfig:
    """GIT_STEP with the host's heartbeat timeout (CODEDESK_GIT_HEARTBEAT_TIMEOUT), which a job
    carries in its input: a workflow cannot read the host's settings."""
    return GIT_STEP | ActivityConfig(heartbeat_timeout=heartbeat_timeout)


CLONE_STEP = ActivityConfig(
    start_to_close_timeout=GIT_STEP_TIMEOUT * 6,
    heartbeat_timeout=GIT_HEARTBEAT_TIMEOUT,
    retry_policy=GIT_RETRY,
)
"""Cloning a repository onto the shelf: a git step that may fetch a whole history."""

SHELF_LOOK_STEP = ActivityConfig(
    start_to_close_timeout=timedelta(seconds=30),
    schedule_to_start_timeout=HOST_WAIT,
    retry_policy=RetryPolicy(maximum_attempts=3),
)
"""A `Repo` entity looks whether its clone is on its host's shelf: a path's test, not waited
for long (a host with no worker leaves the entity as it is)."""

CLASSIFY_STEP = ActivityConfig(start_to_close_timeout=timedelta(seconds=30))
"""Classifying a held call the hold channel did not classify: pure work on one input."""

ADMISSION_CHECK_STEP = ActivityConfig(
    start_to_close_timeout=ADMISSION_CHECK_TIMEOUT, retry_policy=ADMISSION_CHECK_RETRY
)
"""The desk's check of a new job on the host that will run it."""

LOCAL_ADMISSION_CHECK_STEP = LocalActivityConfig(
    start_to_close_timeout=ADMISSION_CHECK_TIMEOUT, retry_policy=ADMISSION_CHECK_RETRY
)
"""The same check, as the local activity desks recorded before hosts ran it."""

RUNNING_JOBS_STEP = ActivityConfig(start_to_close_timeout=timedelta(seconds=30))
"""The desk asks which of its jobs still run (retried by the SDK's default policy)."""

POLICY_READ_STEP = ActivityConfig(
    start_to_close_timeout=POLICY_READ_TIMEOUT, retry_policy=POLICY_READ_RETRY
)
"""A push reads the desk's host policy before it asks anyone."""

SHIP_REQUEST_STEP = ActivityConfig(
    start_to_close_timeout=GIT_STEP_TIMEOUT,
    schedule_to_close_timeout=timedelta(hours=1),
    retry_policy=RetryPolicy(
        initial_interval=timedelta(seconds=2),
        maximum_interval=timedelta(seconds=30),
        non_retryable_error_types=list(NON_RETRYABLE_ERROR_TYPES),
    ),
)
"""A job's ship request waits out another job's integration or push (the entity says it is
busy: retried), but not for ever; a refusal (nothing to ship) is not retried."""

HOST_CHECK_STEP = ActivityConfig(
    start_to_close_timeout=timedelta(seconds=30), retry_policy=RetryPolicy(maximum_attempts=2)
)
"""`codedesk doctor`: probing the sandbox and running `git --version` take well under this."""

SURFACE_STEP = ActivityConfig(
    start_to_close_timeout=SURFACE_STEP_TIMEOUT,
    heartbeat_timeout=SURFACE_HEARTBEAT_TIMEOUT,
    retry_policy=SURFACE_RETRY,
)
"""One post, edit or card on a surface's own queue (the place's queue is added per call)."""


SETUP_STEP = ActivityConfig(
    start_to_close_timeout=timedelta(hours=2),
    heartbeat_timeout=timedelta(seconds=30),
    retry_policy=GIT_RETRY,
    cancellation_type=ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
)
"""A worktree's set-up or check in the sandbox: the host's own setup_timeout/check_timeout end
the command; this bounds the step, and the heartbeat lets a killed worker's step run again."""


def agent_step(time_limit: timedelta, heartbeat_timeout: timedelta) -> ActivityConfig:
    """The agent's run: its work clock's longest allowance plus the hold backstop.

    Cancelling waits until the agent's process group is really dead, so the job never moves on
    (releases or integrates the worktree) while the agent still writes to it.
    """
    return ActivityConfig(
        start_to_close_timeout=time_limit + HOLD_ALLOWANCE,
        heartbeat_timeout=heartbeat_timeout,
        retry_policy=AGENT_RETRY,
        cancellation_type=ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    )


RESULT_HOOK_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(minutes=5),
    non_retryable_error_types=list(NON_RETRYABLE_ERROR_TYPES),
)
"""A result hook is tried again, at most five minutes apart, until the host's window ends (the
step's schedule-to-close timeout): a receiver that is down for an hour still gets the result."""


def result_hook_step(hook: str, attempt_timeout: timedelta, window: timedelta) -> ActivityConfig:
    """One hook's delivery: each attempt within `attempt_timeout`, all within `window`; the
    hook's name is the activity's id, by which `show` and `doctor` find its attempts."""
    return ActivityConfig(
        activity_id=hook,
        start_to_close_timeout=attempt_timeout,
        schedule_to_close_timeout=window,
        retry_policy=RESULT_HOOK_RETRY,
    )
