"""Settings from `CODEDESK_*` environment variables and an optional `codedesk.toml`: every
section (desk/config/sections/) composed into one `DeskSettings`, and how a bad value is told.

Precedence, highest first: values passed in code (CLI options), environment variables, the
TOML file (`$CODEDESK_CONFIG`, else `./codedesk.toml` when it exists), defaults.

Readers keep one flat object, `settings.work_budget`, as the settings' names are flat
(`CODEDESK_WORK_BUDGET`, `work_budget` in codedesk.toml) whichever section holds them; each
section is a model of its own, with its fields, its rules and its rules across its settings.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pydantic import SecretStr, ValidationError

from desk.config.basics.defaults import CONFIG_ENV as CONFIG_ENV
from desk.config.basics.defaults import ENV_PREFIX as ENV_PREFIX
from desk.config.basics.defaults import config_file as config_file
from desk.config.basics.durations import format_duration
from desk.config.basics.section_base import SettingsSection
from desk.config.sections.agent_settings import AgentSettings
from desk.config.sections.chat_settings import ChatSettings
from desk.config.sections.display_settings import DisplaySettings
from desk.config.sections.hold_settings import HoldSettings
from desk.config.sections.host_settings import HostSettings
from desk.config.sections.queue_settings import QueueSettings
from desk.config.sections.result_settings import ResultSettings
from desk.config.sections.sandbox_settings import SandboxSettings
from desk.config.sections.server_settings import ServerSettings
from desk.config.sections.spend_settings import SpendSettings
from desk.errors import SettingsError
from desk.payloads.jobs import DeskLimits
from desk.policy.host import POLICY_SETTINGS, HostPolicy
from desk.policy.result_hooks import ResultHook
from desk.scrub import scrub

SECRET_SETTINGS = frozenset({"discord_token", "temporal_api_key", "result_webhook_secret"})
"""Settings whose values are never shown, not even in an error about them."""
SHOWN_CHARS = 200
"""How much of a bad value an error quotes."""


class DeskSettings(
    DisplaySettings,
    ChatSettings,
    ResultSettings,
    SpendSettings,
    HoldSettings,
    SandboxSettings,
    AgentSettings,
    QueueSettings,
    HostSettings,
    ServerSettings,
):
    """Every setting codedesk reads, by section; docs/reference/settings.md documents each.

    The sections are listed last first: pydantic takes the fields from the last base to the
    first, so the settings read server first, in errors and in the reference alike.
    """

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


SECTIONS = tuple(
    base for base in reversed(DeskSettings.__bases__) if issubclass(base, SettingsSection)
)
"""The sections in the order of the settings' fields, the order the reference lists them."""


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


SettingRow = tuple[str, str, str, str]
"""(name, environment variable, default, meaning) of one setting."""


def settings_table() -> list[tuple[str, list[SettingRow]]]:
    """Each section's heading and a row for each of its settings: the tables of
    docs/reference/settings.md."""
    return [
        (section.heading, [_row(name, section) for name in section.model_fields])
        for section in SECTIONS
    ]


def _row(name: str, section: type[SettingsSection]) -> SettingRow:
    field = section.model_fields[name]
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
    return (name, f"{ENV_PREFIX}{name.upper()}", shown, field.description or "")
