"""The desk's host policy in words, and where this process's own settings say otherwise."""

from __future__ import annotations

from datetime import timedelta

from desk.config.basics.defaults import ENV_PREFIX
from desk.config.basics.durations import format_duration
from desk.policy.host import POLICY_SETTINGS, HostPolicy


def shown_value(value: object) -> str:
    if isinstance(value, timedelta):
        return format_duration(value)
    if isinstance(value, list):
        return ", ".join(str(item) for item in value) or "none"
    return str(value)


def policy_lines(policy: HostPolicy) -> list[str]:
    """One line a field: `owner_repos: none (CODEDESK_OWNER_REPOS)`; `hold_classes` empty is all."""
    lines = []
    for name, setting in POLICY_SETTINGS.items():
        value = getattr(policy, name)
        shown = "all" if name == "hold_classes" and not value else shown_value(value)
        lines.append(f"{name}: {shown} ({ENV_PREFIX}{setting.upper()})")
    return lines


def policy_differences(mine: HostPolicy, desks: HostPolicy) -> list[str]:
    """Where this process's settings differ from the desk's policy, which is what applies."""
    return [
        f"{ENV_PREFIX}{setting.upper()} here is {shown_value(getattr(mine, name))}, the desk's "
        f"is {shown_value(getattr(desks, name))}"
        for name, setting in POLICY_SETTINGS.items()
        if getattr(mine, name) != getattr(desks, name)
    ]


def mode_policy_line(policy: HostPolicy) -> str:
    """What the host's policy lets the modes do, for `codedesk mode`."""
    carded = shown_value(policy.yolo_carded_classes)
    return (
        f"host policy (host {policy.source}): only its owners switch modes "
        f"({shown_value(policy.owners)}); yolo still cards {carded} unless allowed "
        f"({shown_value(policy.yolo_allow)}); long-running looks every "
        f"{format_duration(policy.long_running_check)}, up to "
        f"{format_duration(policy.long_running_max)} of work"
    )
