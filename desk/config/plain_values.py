"""Whether the settings given are ones DeskSettings takes, judged without pydantic.

A listing reads the few settings it needs plainly (desk/config/reach.py), yet a bad value of any
setting must stop it as it stops every command. This judges every other setting the environment
or `codedesk.toml` gives, by the rules DeskSettings applies, when that can be done exactly with
the standard library and codedesk's light modules; a value it cannot vouch for (an odd form, a
setting whose rule needs pydantic) is `unsure`, and the caller then reads the settings in full,
which names a bad value with the message every command gives. It may say unsure of a good
value, never sure of a bad one (tests/config/test_plain_values.py holds it to that).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any

from desk.config.basics.defaults import (
    DEFAULT_HOLD_WAIT,
    DEFAULT_HOOK_TIMEOUT,
    DEFAULT_WORK_BUDGET,
    DEFAULT_WORK_BUDGET_MAX,
    SANDBOX_MODES,
    SERVER_SYNC_MODES,
    blank,
    not_a_directory,
)
from desk.config.basics.durations import MAX_DURATION, parse_duration
from desk.errors import DeskError, HostError
from desk.holds.protocol import HOOK_MARGIN_SECONDS

Check = Callable[[Any], bool]
"""Whether a given value is surely one DeskSettings takes for its setting."""

PLAIN_DIGITS = re.compile(r"[0-9]{1,9}")
PLAIN_DECIMAL = re.compile(r"[0-9]{1,15}(\.[0-9]{1,15})?")
PLAIN_BOOLS = frozenset({"0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes"})
"""The words pydantic reads as a yes/no value (in any case)."""


def unsure(value: Any) -> bool:
    """A setting whose rule needs pydantic or a module that loads it: read in full."""
    return False


def text(value: Any) -> bool:
    return isinstance(value, str)


def integer(low: int, high: int | None = None) -> Check:
    def check(value: Any) -> bool:
        if isinstance(value, str) and PLAIN_DIGITS.fullmatch(value):
            value = int(value)
        if type(value) is not int:
            return False
        return value >= low and (high is None or value <= high)

    return check


def choice(choices: tuple[str, ...]) -> Check:
    def check(value: Any) -> bool:
        return value in choices

    return check


def duration(value: Any) -> bool:
    try:
        read = parse_duration(value)
    except DeskError:
        return False
    return timedelta(0) < read <= MAX_DURATION


def yes_no(value: Any) -> bool:
    return type(value) is bool or (isinstance(value, str) and value.lower() in PLAIN_BOOLS)


def money_or_blank(value: Any) -> bool:
    if isinstance(value, str):
        return blank(value) or bool(PLAIN_DECIMAL.fullmatch(value))
    return type(value) is int and value >= 0


def items(check: Callable[[str], bool]) -> Check:
    """A comma-separated list (or a TOML list of strings) whose every item passes `check`."""

    def list_check(value: Any) -> bool:
        if isinstance(value, str):
            value = [item.strip() for item in value.split(",") if item.strip()]
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return False
        return all(check(item) for item in value)

    return list_check


def _anything(item: str) -> bool:
    return True


def _hold_class(item: str) -> bool:
    from desk.shell_rule.rule import HoldClass

    return item in {hold.value for hold in HoldClass}


def _egress_pattern(item: str) -> bool:
    from desk.policy.egress_policy import parse_patterns

    try:
        parse_patterns([item])
    except ValueError:
        return False
    return True


def _host(value: Any) -> bool:
    from desk.hosts import check_host_name

    if not isinstance(value, str):
        return False
    try:
        check_host_name(value)
    except HostError:
        return False
    return True


def _shelf(value: Any) -> bool:
    return isinstance(value, str) and not blank(value) and not not_a_directory(Path(value))


def _clone_source(value: Any) -> bool:
    return isinstance(value, str) and "{repo}" in value


def _empty(value: Any) -> bool:
    """A setting that takes no rule when empty (no webhook), and one needing pydantic when not."""
    return isinstance(value, str) and not value


def _blank(value: Any) -> bool:
    return isinstance(value, str) and blank(value)


CHECKS: Mapping[str, Check] = MappingProxyType(
    {
        "temporal_tls_ca": unsure,
        "temporal_tls_cert": unsure,
        "temporal_tls_key": unsure,
        "temporal_tls_server_name": unsure,
        "temporal_api_key": unsure,
        "host": _host,
        "host_wait": duration,
        "git_heartbeat_timeout": duration,
        "sticky_timeout": duration,
        "shelf": _shelf,
        "clone_source": _clone_source,
        "agent_command": text,
        "agent_instructions": text,
        "work_budget": duration,
        "work_budget_max": duration,
        "budget_asks": yes_no,
        "budget_asks_max": integer(0),
        "attempts_max": integer(1),
        "prices": _blank,
        "job_spend_limit": money_or_blank,
        "daily_spend_limit": money_or_blank,
        "daily_limit_action": unsure,
        "heartbeat_timeout": duration,
        "report_output_chars": integer(100),
        "report_commits": integer(1),
        "report_files": integer(1),
        "repo_list_commits": integer(1, 50),
        "max_workers": integer(1),
        "max_queued": integer(0),
        "kept_worktrees": integer(0),
        "desk_reclaim_interval": duration,
        "admit_wait": duration,
        "outcome_wait": duration,
        "desk_history_limit": integer(0),
        "owner_id": text,
        "owners": items(_anything),
        "hold_classes": items(_hold_class),
        "hold_tools": items(_anything),
        "owner_repos": items(_anything),
        "setup_timeout": duration,
        "check_timeout": duration,
        "hold_wait": duration,
        "hold_live_wait": duration,
        "hook_timeout": duration,
        "hold_preview_chars": integer(100),
        "hold_request_bytes": integer(1024),
        "report_held_calls": integer(1),
        "report_held_chars": integer(20),
        "message_chars": integer(1),
        "port": integer(1, 65535),
        "ui_url": text,
        "ui_port": integer(1, 65535),
        "server_sync": choice(SERVER_SYNC_MODES),
        "result_webhook": _empty,
        "result_webhook_secret": text,
        "result_command": text,
        "result_hook_timeout": duration,
        "result_hook_window": duration,
        "discord_token": text,
        "discord_owner_ids": items(str.isdigit),
        "discord_owner_role_ids": items(str.isdigit),
        "discord_guild_ids": items(str.isdigit),
        "sandbox": choice(SANDBOX_MODES),
        "sandbox_network": yes_no,
        "sandbox_read_paths": items(_anything),
        "sandbox_egress": items(_egress_pattern),
        "sandbox_egress_deny": items(_egress_pattern),
        "agent_env": items(_anything),
        "discord_progress_interval": duration,
        "unconfined_guards_off": yes_no,
        "agent_progress_interval": duration,
        "progress_agent_lines": integer(0, 20),
        "progress_line_chars": integer(20, 400),
        "progress_text_chars": integer(0, 4000),
        "progress_text_max": integer(200, 20000),
        "yolo_carded_classes": items(_hold_class),
        "yolo_allow": items(_hold_class),
        "long_running_check": duration,
        "long_running_max": duration,
        "session_keep": duration,
        "diagnostic_chars": integer(80),
    }
)
"""Each setting but the few `desk.config.reach` reads itself, and how it is judged plainly."""

ACROSS = MappingProxyType(
    {
        "work_budget": DEFAULT_WORK_BUDGET,
        "work_budget_max": DEFAULT_WORK_BUDGET_MAX,
        "hold_wait": DEFAULT_HOLD_WAIT,
        "hook_timeout": DEFAULT_HOOK_TIMEOUT,
    }
)
"""The settings DeskSettings's rules across settings compare, with their defaults."""


def surely_valid(given: Mapping[str, Any]) -> bool:
    """Whether DeskSettings surely takes every setting in `given` (each name one of CHECKS,
    each value as the environment or the TOML file gives it), and the rules across them."""
    for name, value in given.items():
        if not CHECKS[name](value):
            return False
    if not ACROSS.keys() & given.keys():
        return True
    read = {name: parse_duration(given.get(name, default)) for name, default in ACROSS.items()}
    margin = timedelta(seconds=HOOK_MARGIN_SECONDS)
    return (
        read["work_budget"] <= read["work_budget_max"]
        and read["hold_wait"] + margin <= read["hook_timeout"]
    )
