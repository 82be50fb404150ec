"""Settings from `CODEDESK_*` environment variables and an optional `codedesk.toml`.

Precedence, highest first: values passed in code (CLI options), environment variables, the
TOML file (`$CODEDESK_CONFIG`, else `./codedesk.toml` when it exists), defaults.
"""

from __future__ import annotations

import getpass
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from desk.agents.presets import PRESETS
from desk.config.dates import zone_of
from desk.config.defaults import (
    CARD_VALUE_CHARS_MIN,
    DEFAULT_CARD_VALUE_CHARS,
    DEFAULT_HOLD_WAIT,
    DEFAULT_HOME,
    DEFAULT_HOOK_TIMEOUT,
    DEFAULT_LIST_LIMIT,
    DEFAULT_NAMESPACE,
    DEFAULT_TASK_QUEUE,
    DEFAULT_WORK_BUDGET,
    DEFAULT_WORK_BUDGET_MAX,
    LIST_LIMIT_MIN,
    NOT_BLANK,
    SANDBOX_MODES,
    blank,
    not_a_directory,
)
from desk.config.defaults import CONFIG_ENV as CONFIG_ENV
from desk.config.defaults import ENV_PREFIX as ENV_PREFIX
from desk.config.defaults import config_file as config_file
from desk.config.durations import MAX_DURATION, format_duration, parse_duration
from desk.errors import DeskError, HostError, SettingsError
from desk.holds.protocol import HOOK_MARGIN_SECONDS
from desk.hosts import check_host_name, machine_host_name
from desk.payloads.jobs import DeskLimits
from desk.policy.daily import DailyLimitAction
from desk.policy.egress import parse_patterns
from desk.policy.host import HOLD_CLASS_NAMES, POLICY_SETTINGS, HostPolicy
from desk.policy.results import ResultHook, webhook_url_problem
from desk.scrub import DIAGNOSTIC_CHARS, scrub
from desk.usage.prices import parse_prices

AGENT_ENV_DEFAULT = (
    "PATH", "LANG", "LANGUAGE", "LC_*", "TERM", "COLORTERM", "NO_COLOR", "TZ",
    "ANTHROPIC_*", "CLAUDE_CODE_*", "OPENAI_*", "AZURE_OPENAI_*", "GEMINI_API_KEY",
    "OPENROUTER_API_KEY", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY",
    "http_proxy", "https_proxy", "no_proxy",
)  # fmt: skip
"""What the agent's CLI needs of the worker's environment: locale, terminal, model APIs."""
SECRET_SETTINGS = frozenset({"discord_token", "temporal_api_key", "result_webhook_secret"})
"""Settings whose values are never shown, not even in an error about them."""
SHOWN_CHARS = 200
"""How much of a bad value an error quotes."""


class DeskSettings(BaseSettings):
    """Every setting codedesk reads; docs/reference/settings.md documents each."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    home: Path = Field(
        default=Path(DEFAULT_HOME),
        description="Where codedesk keeps its server database, shelf, job logs and runtime file.",
    )
    temporal_address: str = Field(
        default="",
        description="Temporal frontend host:port; empty means the embedded dev server.",
    )
    temporal_tls_ca: Path | None = Field(
        default=None,
        description="PEM file of the CA that signed the Temporal frontend's certificate (TLS on).",
    )
    temporal_tls_cert: Path | None = Field(
        default=None,
        description="PEM client certificate for mTLS to the Temporal frontend (with its key).",
    )
    temporal_tls_key: Path | None = Field(
        default=None, description="PEM private key of temporal_tls_cert."
    )
    temporal_tls_server_name: str = Field(
        default="", description="The name the frontend's certificate must carry (TLS's SNI)."
    )
    temporal_api_key: SecretStr = Field(
        default=SecretStr(""),
        description="API key for the Temporal frontend (Temporal Cloud); TLS is on with it.",
    )
    namespace: str = Field(default=DEFAULT_NAMESPACE, description="Temporal namespace.")
    task_queue: str = Field(
        default=DEFAULT_TASK_QUEUE, description="Task queue of the codedesk worker."
    )
    host: str = Field(
        default_factory=machine_host_name,
        description="This worker's host name (its clones and job slots); default: the machine's.",
    )
    host_wait: timedelta = Field(
        default=timedelta(minutes=1),
        description="How long a step waits for its host's worker before the job says it waits.",
    )
    shelf: Path | None = Field(
        default=None, description="Where clones live; default `<home>/shelf`."
    )
    clone_source: str = Field(
        default="https://github.com/{repo}.git",
        description="Where `repo add` clones from when no --from is given; `{repo}` is owner/repo.",
    )
    agent_command: str = Field(
        default=PRESETS["claude"],
        description="The coding agent's command; `{task}` is replaced by the task text.",
    )
    agent_instructions: Path | None = Field(
        default=None,
        description=(
            "A file of standing instructions that replaces codedesk's own for every agent; "
            "it must keep their required sentences. Empty: codedesk's own."
        ),
    )
    work_budget: timedelta = Field(
        default=DEFAULT_WORK_BUDGET,
        description="How long a job's agent may work before it is stopped (e.g. 90s, 10m, 1h).",
    )
    work_budget_max: timedelta = Field(
        default=DEFAULT_WORK_BUDGET_MAX,
        description="The longest work budget a job may ask for (`task --timeout`); host policy.",
    )
    prices: str = Field(
        default="",
        description=(
            "Dollars per million tokens for agent CLIs that report tokens but no money, as"
            " `model=input/output[/cached]`, comma-separated (e.g. `gpt-5=1.25/10/0.125`);"
            " a model not named: cost unknown."
        ),
    )
    job_spend_limit: Decimal | None = Field(
        default=None,
        ge=0,
        description=(
            "The most a job's agent may spend, in US dollars, before it is stopped (its usage"
            " priced by the CLI or by `prices`; tokens at an unknown cost stop it too). Empty:"
            " no limit."
        ),
    )
    daily_spend_limit: Decimal | None = Field(
        default=None,
        ge=0,
        description=(
            "The most the desk's jobs may spend in one UTC day, in US dollars: once today's"
            " total reaches it, new tasks wait or are refused (`daily_limit_action`), and each"
            " job's spend limit is at most what is left of the day. Empty: no limit."
        ),
    )
    daily_limit_action: DailyLimitAction = Field(
        default=DailyLimitAction.QUEUE,
        description=(
            "What a new task gets once today's total has reached `daily_spend_limit`: queue"
            " (it waits in the desk's queue until the next UTC day) or refuse."
        ),
    )
    heartbeat_timeout: timedelta = Field(
        default=timedelta(seconds=30),
        description="How long a silent agent activity lives before a crashed worker's job moves.",
    )
    report_output_chars: int = Field(
        default=20_000, ge=100, description="Characters of the agent's final output in a report."
    )
    report_commits: int = Field(default=50, ge=1, description="Commits listed in a report.")
    report_files: int = Field(default=100, ge=1, description="Files listed in a report.")
    repo_list_commits: int = Field(
        default=3, ge=1, le=50, description="Last commits of each clone that `repo list` shows."
    )
    max_workers: int = Field(
        default=4,
        ge=1,
        description="Job slots of this worker's host: how many jobs' agents run there at once.",
    )
    max_queued: int = Field(
        default=16, ge=0, description="Jobs that may wait for a slot; one more is refused."
    )
    kept_worktrees: int = Field(
        default=4,
        ge=0,
        description=(
            "Idle worktrees kept per clone for later jobs, at most max_workers; a job takes one "
            "and makes it clean at the clone's HEAD instead of checking out every file "
            "(0: every job cuts a new worktree)."
        ),
    )
    desk_reclaim_interval: timedelta = Field(
        default=timedelta(seconds=30),
        description="While jobs wait, how often the desk reclaims slots of jobs no longer running.",
    )
    admit_wait: timedelta = Field(
        default=timedelta(minutes=2),
        description="How long a submission waits for the desk's answer, asking again meanwhile.",
    )
    outcome_wait: timedelta = Field(
        default=timedelta(seconds=10),
        description=(
            "How long `codedesk push`, `approve` and `decline` wait to say what came of them "
            "(a push refused before its card, pushed or declined) before saying where to see it."
        ),
    )
    desk_history_limit: int = Field(
        default=0,
        ge=0,
        description="History events before the desk continues as new (0: when Temporal suggests).",
    )
    owner_id: str = Field(
        default="",
        description="Who the CLI answers approvals as; empty means `local:<your user name>`.",
    )
    owners: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Principal ids who may answer approvals (comma-separated); empty = owner_id.",
    )
    hold_classes: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Hold classes that wait for a person (comma-separated); empty = all four.",
    )
    hold_tools: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Agent tools that always wait for a person (comma-separated).",
    )
    owner_repos: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Exact owner/repo names whose pushes need no owner's approval (comma list).",
    )
    setup_timeout: timedelta = Field(
        default=timedelta(minutes=15),
        description="How long a repository's worktree set-up command may run before the job fails.",
    )
    check_timeout: timedelta = Field(
        default=timedelta(minutes=15),
        description="How long a repository's check may run before it counts as timed out.",
    )
    hold_wait: timedelta = Field(
        default=DEFAULT_HOLD_WAIT,
        description="How long `codedesk hold` waits for an answer before refusing the call.",
    )
    hold_live_wait: timedelta = Field(
        default=timedelta(seconds=60),
        description=(
            "How long a held call waits live before the agent is suspended (where its CLI can"
            " defer a call: the `claude` preset): the agent ends, and the job waits for the"
            " approval with no process, no slot and no deadline, then resumes the session."
            " 0: never suspend; other CLIs wait `hold_wait` as before."
        ),
    )
    hook_timeout: timedelta = Field(
        default=DEFAULT_HOOK_TIMEOUT,
        description="The agent's hook timeout (Claude Code's); must exceed hold_wait by 30s.",
    )
    hold_preview_chars: int = Field(
        default=2000,
        ge=100,
        description="Characters of a held call's input its approval card shows (a preview).",
    )
    hold_request_bytes: int = Field(
        default=8 << 20,
        ge=1024,
        description="Largest held call (bytes of JSON) the hold channel takes; larger: refused.",
    )
    report_held_calls: int = Field(
        default=10, ge=1, description="Declined or unanswered calls listed in a report."
    )
    report_held_chars: int = Field(
        default=1000, ge=20, description="Characters of each held call in a report."
    )
    card_value_chars: int = Field(
        default=DEFAULT_CARD_VALUE_CHARS,
        ge=CARD_VALUE_CHARS_MIN,
        description="Characters of one value a terminal approval card shows; the rest is counted.",
    )
    port: int = Field(
        default=7233, ge=1, le=65535, description="Port of the embedded Temporal server."
    )
    ui_url: str = Field(
        default="",
        description="Base URL of the Temporal web UI for links; empty = the embedded server's UI.",
    )
    ui_port: int = Field(
        default=8233, ge=1, le=65535, description="Port of the embedded Temporal web UI."
    )
    result_webhook: str = Field(
        default="",
        description="An http(s) URL that gets each job's report and push's result as JSON.",
    )
    result_webhook_secret: SecretStr = Field(
        default=SecretStr(""),
        description="Key of the webhook's HMAC-SHA256 signature (X-Codedesk-Signature).",
    )
    result_command: str = Field(
        default="",
        description="A command run with each job's report and push's result as JSON on stdin.",
    )
    result_hook_timeout: timedelta = Field(
        default=timedelta(seconds=30), description="How long one delivery of a result may take."
    )
    result_hook_window: timedelta = Field(
        default=timedelta(days=1),
        description="How long a result's delivery is tried again before it is given up.",
    )
    discord_token: SecretStr = Field(
        default=SecretStr(""),
        description="The Discord bot's token: give it in the environment; never logged or shown.",
    )
    discord_owner_ids: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Discord user ids who may use the bot's commands (comma-separated).",
    )
    discord_owner_role_ids: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Discord role ids whose members may use the bot's commands (comma list).",
    )
    discord_guild_ids: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Discord servers (guild ids) `codedesk discord --sync` registers commands in.",
    )
    sandbox: str = Field(
        default="auto",
        description="Agent sandbox: bwrap, none, or auto (bwrap when it works on this host).",
    )
    sandbox_network: bool = Field(
        default=True,
        description="Whether a sandboxed agent has the network (via the egress proxy; false: no).",
    )
    sandbox_read_paths: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Extra paths a sandboxed agent may read, e.g. ~/.claude (comma-separated).",
    )
    sandbox_egress: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["*"],
        description=(
            "Where a sandboxed agent may connect through the egress proxy: `*` (anywhere "
            "public) or host[:port] patterns; a named loopback host:port is allowed too."
        ),
    )
    sandbox_egress_deny: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Destinations (host[:port] patterns) the egress proxy always refuses.",
    )
    agent_env: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(AGENT_ENV_DEFAULT),
        description="Variables of the worker's environment the agent gets (names, `*` globs).",
    )
    discord_progress_interval: timedelta = Field(
        default=timedelta(seconds=5),
        description="At most one edit of a job thread's progress message per this interval.",
    )
    unconfined_guards_off: bool = Field(
        default=False,
        description=(
            "Let an agent command that turns its CLI's own guards off (codex "
            "--dangerously-bypass-approvals-and-sandbox) run without codedesk's sandbox."
        ),
    )
    list_limit: int = Field(
        default=DEFAULT_LIST_LIMIT,
        ge=LIST_LIMIT_MIN,
        description="Entries `codedesk jobs` and `codedesk approvals` show, newest first.",
    )
    agent_progress_interval: timedelta = Field(
        default=timedelta(seconds=5),
        description=(
            "How often a working agent's latest lines reach Temporal (its heartbeat), where "
            "a job's Discord thread and `codedesk watch` read them."
        ),
    )
    progress_agent_lines: int = Field(
        default=5,
        ge=0,
        le=20,
        description="The agent's latest lines a job's progress message shows (0: none).",
    )
    progress_line_chars: int = Field(
        default=160,
        ge=20,
        le=400,
        description="Characters of each agent line in a job's progress message.",
    )
    progress_text_chars: int = Field(
        default=400,
        ge=0,
        le=4000,
        description=(
            "An agent's own text this long, or with a heading, list, table or code fence, is "
            "posted in the job's thread as a message of its own and printed by `codedesk "
            "watch` (0: never)."
        ),
    )
    progress_text_max: int = Field(
        default=4000,
        ge=200,
        le=20000,
        description="Characters of one such agent text shown; a longer one is cut.",
    )
    yolo_carded_classes: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["push"],
        description="Hold classes that stop on a card even in yolo mode (comma-separated).",
    )
    yolo_allow: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Carded hold classes yolo mode approves after all (comma-separated).",
    )
    long_running_check: timedelta = Field(
        default=timedelta(seconds=60),
        description="How often a job past its budget in long-running mode looks at the mode.",
    )
    long_running_max: timedelta = Field(
        default=timedelta(hours=4),
        description="Hard ceiling of a job's work time in long-running mode, whatever it says.",
    )
    diagnostic_chars: int = Field(
        default=DIAGNOSTIC_CHARS,
        ge=80,
        description="Characters of a failed command's (scrubbed) words a failure quotes: "
        "git's, gh's and the agent CLI's.",
    )
    time_zone: str = Field(
        default="",
        description="IANA time zone of every date a person reads (e.g. Europe/Berlin); "
        "empty: the machine's.",
    )

    @field_validator(
        "owners",
        "hold_classes",
        "hold_tools",
        "owner_repos",
        "discord_owner_ids",
        "discord_owner_role_ids",
        "discord_guild_ids",
        "sandbox_read_paths",
        "sandbox_egress",
        "sandbox_egress_deny",
        "agent_env",
        "yolo_carded_classes",
        "yolo_allow",
        mode="before",
    )
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @field_validator("discord_owner_ids", "discord_owner_role_ids", "discord_guild_ids")
    @classmethod
    def _snowflakes(cls, value: list[str]) -> list[str]:
        bad = [item for item in value if not item.isdigit()]
        if bad:
            raise ValueError(
                f"has ids that are not Discord ids {bad}: use the numbers Discord's "
                "developer mode copies (right-click, Copy ID)"
            )
        return value

    @field_validator("hold_classes", "yolo_carded_classes", "yolo_allow")
    @classmethod
    def _known_classes(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(HOLD_CLASS_NAMES))
        if unknown:
            raise ValueError(
                f"has unknown hold classes {unknown}: use {', '.join(HOLD_CLASS_NAMES)}"
            )
        return value

    @field_validator(
        "work_budget",
        "work_budget_max",
        "heartbeat_timeout",
        "desk_reclaim_interval",
        "hold_wait",
        "hold_live_wait",
        "setup_timeout",
        "check_timeout",
        "hook_timeout",
        "host_wait",
        "admit_wait",
        "outcome_wait",
        "discord_progress_interval",
        "agent_progress_interval",
        "long_running_check",
        "long_running_max",
        "result_hook_timeout",
        "result_hook_window",
        mode="before",
    )
    @classmethod
    def _read_duration(cls, value: Any) -> timedelta:
        try:
            duration = parse_duration(value)
        except DeskError as error:
            raise ValueError(str(error)) from None
        if duration <= timedelta(0):
            raise ValueError("must be longer than zero")
        if duration > MAX_DURATION:
            raise ValueError(
                f"is longer than the longest duration codedesk takes "
                f"({format_duration(MAX_DURATION)}, 2,147,483,647 ms)"
            )
        return duration

    @field_validator("sandbox_egress", "sandbox_egress_deny")
    @classmethod
    def _egress_patterns(cls, value: list[str]) -> list[str]:
        parse_patterns(value)
        return value

    @field_validator("prices")
    @classmethod
    def _price_table(cls, value: str) -> str:
        parse_prices(value)
        return value

    @field_validator("result_webhook")
    @classmethod
    def _webhook_url(cls, value: str) -> str:
        problem = webhook_url_problem(value) if value else ""
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("sandbox")
    @classmethod
    def _sandbox_mode(cls, value: str) -> str:
        if value not in SANDBOX_MODES:
            raise ValueError(f"must be one of {', '.join(SANDBOX_MODES)}")
        return value

    @field_validator("clone_source")
    @classmethod
    def _needs_repo_placeholder(cls, value: str) -> str:
        if "{repo}" not in value:
            raise ValueError("must contain {repo}, e.g. https://github.com/{repo}.git")
        return value

    @field_validator(*NOT_BLANK)
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if blank(value):
            raise ValueError("must not be empty")
        return value

    @field_validator("host")
    @classmethod
    def _host_name(cls, value: str) -> str:
        try:
            return check_host_name(value)
        except HostError as error:
            raise ValueError(str(error)) from None

    @field_validator("agent_instructions", "job_spend_limit", "daily_spend_limit", mode="before")
    @classmethod
    def _blank_is_built_in(cls, value: Any) -> Any:
        # An empty variable means codedesk's own instructions, not a file named "."; no limit.
        return None if isinstance(value, str) and blank(value) else value

    @field_validator("home", "shelf", mode="before")
    @classmethod
    def _no_blank_path(cls, value: Any) -> Any:
        # Path("") is ".": an empty variable would silently put the server's database and the
        # shelf in whatever directory a command happens to run from.
        if isinstance(value, str) and blank(value):
            raise ValueError("must not be empty: name a directory, or unset it for the default")
        return value

    @model_validator(mode="after")
    def _hold_wait_fits_the_hook(self) -> DeskSettings:
        # A hook that times out does not block: the call would run unapproved.
        margin = timedelta(seconds=HOOK_MARGIN_SECONDS)
        if self.hold_wait + margin > self.hook_timeout:
            raise ValueError(
                f"hold_wait (CODEDESK_HOLD_WAIT, {format_duration(self.hold_wait)}) does not fit "
                f"in the agent's hook timeout (CODEDESK_HOOK_TIMEOUT, "
                f"{format_duration(self.hook_timeout)}) with {HOOK_MARGIN_SECONDS}s to spare: a "
                "hook that times out lets the call run, so codedesk starts no job like this. "
                "Shorten the wait or lengthen the hook timeout"
            )
        return self

    @model_validator(mode="after")
    def _budget_within_its_bound(self) -> DeskSettings:
        if self.work_budget > self.work_budget_max:
            raise ValueError(
                f"work_budget (CODEDESK_WORK_BUDGET, {format_duration(self.work_budget)}) is "
                f"above work_budget_max (CODEDESK_WORK_BUDGET_MAX, "
                f"{format_duration(self.work_budget_max)}): every job would ask for more than "
                "it may. Lower the budget or raise the bound"
            )
        return self

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            zone_of(value)
        except SettingsError as error:
            raise ValueError(str(error).rstrip(".")) from None
        return value

    @field_validator("temporal_tls_ca", "temporal_tls_cert", "temporal_tls_key")
    @classmethod
    def _a_readable_file(cls, value: Path | None) -> Path | None:
        if value is None:
            return None
        try:
            path = value.expanduser()
            found = path.is_file()
        except (OSError, RuntimeError):  # a name too long for the system, no home for a ~
            found = False
        if not found:
            raise ValueError("is not a file: name a PEM file the worker can read")
        return path

    @model_validator(mode="after")
    def _cert_with_its_key(self) -> DeskSettings:
        if (self.temporal_tls_cert is None) != (self.temporal_tls_key is None):
            raise ValueError(
                "temporal_tls_cert and temporal_tls_key (CODEDESK_TEMPORAL_TLS_CERT, "
                "CODEDESK_TEMPORAL_TLS_KEY) go together: set both for mTLS, or neither"
            )
        return self

    @model_validator(mode="after")
    def _expand_paths(self) -> DeskSettings:
        self.home = self.home.expanduser()
        self.shelf = (self.shelf or self.home / "shelf").expanduser()
        return self

    @field_validator("home", "shelf")
    @classmethod
    def _a_directory(cls, value: Path | None) -> Path | None:
        if value is not None and not_a_directory(value):
            raise ValueError(
                "is not a directory codedesk can use: name a directory (it is created if missing)"
            )
        return value

    @property
    def shelf_dir(self) -> Path:
        """The shelf directory, always set after validation."""
        return self.shelf if self.shelf is not None else self.home / "shelf"

    @property
    def owner(self) -> str:
        """The principal id the CLI answers as."""
        if self.owner_id:
            return self.owner_id
        try:
            return f"local:{getpass.getuser()}"
        except (KeyError, OSError):
            return "local:owner"

    @property
    def owner_ids(self) -> list[str]:
        """Who may answer approvals: the owners (or the CLI's owner) and the Discord owners."""
        ids = self.owners or [self.owner]
        discord = [f"discord:{user}" for user in self.discord_owner_ids]
        return list(dict.fromkeys([*ids, *discord]))

    @property
    def host_policy(self) -> HostPolicy:
        """This host's policy, as its worker tells the desk (see desk/policy/host.py)."""
        values = {field: getattr(self, setting) for field, setting in POLICY_SETTINGS.items()}
        # Who may answer: the owners named, else the worker's own user, and its Discord owners.
        values["owners"] = self.owner_ids
        values["result_hooks"] = [
            hook
            for hook, given in (
                (ResultHook.WEBHOOK, self.result_webhook),
                (ResultHook.COMMAND, self.result_command),
            )
            if given
        ]
        return HostPolicy(**values, source=self.host)

    @property
    def desk_limits(self) -> DeskLimits:
        """What a starting worker tells the desk: its limits and its host's policy."""
        return DeskLimits(
            max_workers=self.max_workers,
            max_queued=self.max_queued,
            reclaim_interval=self.desk_reclaim_interval,
            history_limit=self.desk_history_limit,
            host=self.host,
            shelf=str(self.shelf_dir),
            policy=self.host_policy,
        )

    @property
    def jobs_dir(self) -> Path:
        """Where each job keeps its agent log and receipts: `<home>/jobs/<n>/`."""
        return self.home / "jobs"

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        toml = config_file()
        if toml is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml))
        return tuple(sources)


def load_settings(**overrides: Any) -> DeskSettings:
    """Read the settings, turning any bad value into a SettingsError that names the setting."""
    toml = config_file()
    if toml is not None and not toml.is_file():
        raise SettingsError(f"Config file {str(toml)!r} ({CONFIG_ENV}) does not exist.")
    given = {key: value for key, value in overrides.items() if value is not None}
    try:
        return DeskSettings(**given)
    except ValidationError as error:
        raise SettingsError(_describe(error)) from None
    except ValueError as error:
        raise SettingsError(f"Config file {str(toml)!r} is not valid TOML: {error}") from None


def _describe(error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        name = ".".join(str(part) for part in item["loc"])
        message = str(item["msg"]).removeprefix("Value error, ")
        if not name:  # a rule across settings names them itself
            problems.append(message)
            continue
        got = "(a secret: not shown)" if name in SECRET_SETTINGS else _shown(item["input"])
        problems.append(f"setting {name!r} ({ENV_PREFIX}{name.upper()}) {message} (got {got})")
    # A rule's own message may quote the value too: no credential in it reaches a terminal.
    return scrub(
        "Bad setting: " + "; ".join(problems) + ". Fix it in the environment or codedesk.toml."
    )


def _shown(value: Any) -> str:
    """A bad value as an error shows it: scrubbed of credentials, and cut when it is long."""
    text = scrub(repr(value))
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"... ({len(text)} chars)"


def settings_table() -> list[tuple[str, str, str, str]]:
    """(name, environment variable, default, meaning) for each setting: the table of
    docs/reference/settings.md."""
    rows = []
    for name, field in DeskSettings.model_fields.items():
        default = field.get_default(call_default_factory=True)
        if isinstance(default, SecretStr):
            default = default.get_secret_value()
        if isinstance(default, list):
            default = ",".join(default)
        if name == "host":
            shown = "(this machine's host name)"
        elif isinstance(default, bool):
            shown = str(default).lower()
        elif isinstance(default, timedelta):
            shown = format_duration(default)
        elif default is None:
            shown = "<home>/shelf" if name == "shelf" else "(empty)"
        else:
            shown = str(default) or "(empty)"
        rows.append((name, f"{ENV_PREFIX}{name.upper()}", shown, field.description or ""))
    return rows
