"""Host policy: what the desk's own workers decide for every job and push, never the requester.

Who may answer and switch modes, what is held, which repositories' pushes skip the owner's
approval, the work budget and its bound, the spend limits (a job's, the desk's day's), the
long-running ceiling and the report limits are read
from the configuration of the workers that host the desk. Each worker sends its policy when it
starts (with its `DeskLimits`); the `Desk` entity keeps the newest one, so one desk has one
policy: that of the worker that started last. A request may ask for something stricter (a
shorter budget, more hold classes, a push that waits although its repository is exempt); a
looser ask is refused, naming the host's setting.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

from pydantic import Field

from desk.config.basics.durations import MAX_DURATION, format_duration, parse_duration
from desk.errors import DurationError, PolicyError
from desk.policy.daily import DailyLimitAction
from desk.policy.result_hooks import ResultHook, ResultHooks
from desk.records.base import Payload
from desk.shell_rule.rule import HoldClass

HOLD_CLASS_NAMES = tuple(hold.value for hold in HoldClass)


class HostPolicy(Payload):
    """The desk's policy, as the worker that configured it last read it from its settings."""

    owners: list[str] = Field(default_factory=list)
    """Principal ids who may answer approvals and switch modes."""
    owner_roles: list[str] = Field(default_factory=list)
    """Discord role ids whose members the bot may name as owners when they switch a mode."""
    owner_repos: list[str] = Field(default_factory=list)
    """Exact owner/repo names whose pushes need no owner's approval."""
    hold_classes: list[str] = Field(default_factory=list)
    """Hold classes that wait for a person (empty: all of them)."""
    hold_tools: list[str] = Field(default_factory=list)
    yolo_carded_classes: list[str] = Field(default_factory=lambda: ["push"])
    yolo_allow: list[str] = Field(default_factory=list)
    work_budget: timedelta = timedelta(hours=1)
    """A job's work budget when its request names none."""
    work_budget_max: timedelta = timedelta(days=1)
    """The longest work budget a request may ask for."""
    budget_asks: bool = True
    """Whether a job whose budget is reached pauses and asks a person (when its agent resumes)."""
    budget_asks_max: int = 3
    """How many times one job may ask to go on past its budget."""
    attempts_max: int = 4
    """The most attempts one task may ask for."""
    job_spend_limit: Decimal | None = None
    """What one job's agent may spend in US dollars (None: no limit); a request may ask less."""
    daily_spend_limit: Decimal | None = None
    """What the desk's jobs may spend in one UTC day in US dollars (None: no limit); each job's
    limit is bounded by what is left of the day when it starts."""
    daily_limit_action: DailyLimitAction = DailyLimitAction.QUEUE
    """What a new task gets once the day's total has reached `daily_spend_limit`."""
    long_running_check: timedelta = timedelta(seconds=60)
    long_running_max: timedelta = timedelta(hours=4)
    report_output_chars: int = 20_000
    report_commits: int = 50
    report_files: int = 100
    report_held_calls: int = 10
    report_held_chars: int = 1000
    message_chars: int = 8000
    """The longest message a person may send a job's agent."""
    session_keep: timedelta = timedelta(days=7)
    """How long a finished job's agent session is kept, then removed."""
    hold_wait: timedelta = timedelta(minutes=10)
    """How long a held call waits for a person (applied by the worker that runs the agent)."""
    result_hooks: list[ResultHook] = Field(default_factory=list)
    """Where results go when a job or a push ends, beyond codedesk's own surfaces: the hooks
    the worker has settings for (their URL, secret and command stay in its settings)."""
    result_hook_timeout: timedelta = timedelta(seconds=30)
    result_hook_window: timedelta = timedelta(days=1)
    git_heartbeat_timeout: timedelta = timedelta(seconds=10)
    """How soon a silent git step of a job is tried again (a crashed worker's)."""

    @property
    def result_delivery(self) -> ResultHooks | None:
        """How a result is delivered, or None when no hook is set."""
        if not self.result_hooks:
            return None
        return ResultHooks(
            hooks=list(self.result_hooks),
            attempt_timeout=self.result_hook_timeout,
            window=self.result_hook_window,
        )

    source: str = ""
    """The host (and process) whose worker sent this policy."""
    set_at: datetime | None = None
    """When the desk took it (set by the desk)."""

    def exempt(self, repo: str) -> bool:
        """Whether a push of `repo` runs without an owner's approval (only an exact name)."""
        return repo in self.owner_repos

    def owns(self, principal: str, roles: list[str] | None = None) -> bool:
        """Whether `principal` (or one of the Discord `roles` a bot vouches for) is an owner."""
        return principal in self.owners or bool(set(roles or ()) & set(self.owner_roles))


POLICY_SETTINGS = {
    "owners": "owners",
    "owner_roles": "discord_owner_role_ids",
    "owner_repos": "owner_repos",
    "hold_classes": "hold_classes",
    "hold_tools": "hold_tools",
    "yolo_carded_classes": "yolo_carded_classes",
    "yolo_allow": "yolo_allow",
    "work_budget": "work_budget",
    "work_budget_max": "work_budget_max",
    "budget_asks": "budget_asks",
    "budget_asks_max": "budget_asks_max",
    "attempts_max": "attempts_max",
    "job_spend_limit": "job_spend_limit",
    "daily_spend_limit": "daily_spend_limit",
    "daily_limit_action": "daily_limit_action",
    "long_running_check": "long_running_check",
    "long_running_max": "long_running_max",
    "report_output_chars": "report_output_chars",
    "report_commits": "report_commits",
    "report_files": "report_files",
    "report_held_calls": "report_held_calls",
    "report_held_chars": "report_held_chars",
    "message_chars": "message_chars",
    "session_keep": "session_keep",
    "hold_wait": "hold_wait",
    "result_hook_timeout": "result_hook_timeout",
    "result_hook_window": "result_hook_window",
    "git_heartbeat_timeout": "git_heartbeat_timeout",
}
"""Each policy field and the worker's setting it is read from (its variable: CODEDESK_<NAME>)."""


class JobAsk(Payload):
    """What a request may ask of the policy for its job: only ever something stricter."""

    budget: timedelta | None = None
    """A work budget (None: the host's default); above the host's bound it is refused."""
    hold_classes: list[str] = Field(default_factory=list)
    """Hold classes to hold in addition to the host's."""
    spend_limit: Decimal | None = None
    """A spend limit in US dollars (None: the host's); above the host's limit it is refused."""


def asked_budget(text: str) -> timedelta:
    """A work budget a person typed: positive and finite, at most `MAX_DURATION`.

    Raises:
        DurationError: it cannot be read, is zero, or is longer than any timer takes.
    """
    budget = parse_duration(text)
    if budget <= timedelta(0):
        raise DurationError(
            f"A work budget of {text!r} is no time at all: give a positive duration such as "
            "90s, 10m or 1h (or leave it out for the host's default)."
        )
    if budget > MAX_DURATION:
        raise DurationError(
            f"A work budget of {text!r} is longer than any budget codedesk takes "
            f"({format_duration(MAX_DURATION)}, 2,147,483,647 ms): give a shorter one."
        )
    return budget


def judged_budget(ask: JobAsk, policy: HostPolicy) -> timedelta:
    """The job's work budget: the ask within the host's bound, else the host's default.

    Raises:
        PolicyError: the ask is not positive or is above the host's bound.
    """
    if ask.budget is None:
        return policy.work_budget
    bound = format_duration(policy.work_budget_max)
    if ask.budget <= timedelta(0):
        raise PolicyError(
            f"A work budget of {format_duration(ask.budget)} is not positive: ask for a "
            f"duration like 10m, up to the host's bound of {bound}."
        )
    if ask.budget > policy.work_budget_max:
        raise PolicyError(
            f"A work budget of {format_duration(ask.budget)} is above the host's bound of "
            f"{bound} (CODEDESK_WORK_BUDGET_MAX on the desk's "
            "worker): ask for less, or have the host's operator raise the bound. Nothing was "
            "started."
        )
    return ask.budget


def asked_spend_limit(text: str) -> Decimal:
    """A spend limit a person typed, in US dollars (`2.50`, `$2.50`).

    Raises:
        PolicyError: it is not a positive amount.
    """
    try:
        amount = Decimal(text.strip().removeprefix("$"))
    except ArithmeticError:
        amount = Decimal(0)
    if not amount.is_finite() or amount <= 0:
        raise PolicyError(
            f"A spend limit of {text!r} is not a positive amount of US dollars: give one like "
            "2.50 (or leave it out for the host's limit). Nothing was started."
        )
    return amount


def judged_spend_limit(ask: JobAsk, policy: HostPolicy) -> Decimal | None:
    """The job's spend limit: the ask within the host's limit, else the host's (None: none).

    Raises:
        PolicyError: the ask is not positive or is above the host's limit.
    """
    if ask.spend_limit is None:
        return policy.job_spend_limit
    if ask.spend_limit <= 0:
        raise PolicyError(
            f"A spend limit of ${ask.spend_limit} is not positive: ask for an amount in US "
            "dollars, like 2.50. Nothing was started."
        )
    if policy.job_spend_limit is not None and ask.spend_limit > policy.job_spend_limit:
        raise PolicyError(
            f"A spend limit of ${ask.spend_limit} is above the host's limit of "
            f"${policy.job_spend_limit} (CODEDESK_JOB_SPEND_LIMIT on the desk's worker): ask "
            "for less. Nothing was started."
        )
    return ask.spend_limit


def judged_hold_classes(ask: JobAsk, policy: HostPolicy) -> list[str]:
    """The host's hold classes and those the request adds (empty, "all", stays all)."""
    if not policy.hold_classes:
        return []
    return list(dict.fromkeys([*policy.hold_classes, *ask.hold_classes]))
