"""Which `CODEDESK_*` variables and codedesk.toml keys are no setting, and the nearest one."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from desk.config.basics.defaults import CONFIG_ENV, ENV_PREFIX
from desk.nearest import nearest

SETTING_NAMES = frozenset(
    {
        "home", "temporal_address", "temporal_tls_ca", "temporal_tls_cert", "temporal_tls_key",
        "temporal_tls_server_name", "temporal_api_key", "namespace", "task_queue", "host",
        "host_wait", "git_heartbeat_timeout", "sticky_timeout",
        "shelf", "clone_source", "agent_command", "agent_instructions", "work_budget",
        "work_budget_max", "budget_asks", "budget_asks_max", "attempts_max", "prices",
        "job_spend_limit",
        "daily_spend_limit",
        "daily_limit_action", "heartbeat_timeout",
        "report_output_chars", "report_commits", "report_files", "repo_list_commits",
        "max_workers", "max_queued", "kept_worktrees", "desk_reclaim_interval", "admit_wait",
        "desk_history_limit", "outcome_wait",
        "owner_id", "owners", "hold_classes", "hold_tools", "owner_repos", "hold_wait",
        "hold_live_wait",
        "setup_timeout", "check_timeout",
        "hook_timeout", "hold_preview_chars", "hold_request_bytes", "report_held_calls",
        "report_held_chars", "message_chars", "card_value_chars", "port", "ui_url", "ui_port",
        "server_sync",
        "result_webhook",
        "result_webhook_secret", "result_command", "result_hook_timeout", "result_hook_window",
        "discord_token",
        "discord_owner_ids", "discord_owner_role_ids", "discord_guild_ids", "sandbox",
        "sandbox_network", "sandbox_read_paths", "sandbox_egress", "sandbox_egress_deny",
        "agent_env", "discord_progress_interval", "unconfined_guards_off", "list_limit",
        "agent_progress_interval", "progress_agent_lines", "progress_line_chars",
        "progress_text_chars", "progress_text_max",
        "yolo_carded_classes", "yolo_allow", "long_running_check", "long_running_max",
        "session_keep",
        "diagnostic_chars", "time_zone",
    }
)  # fmt: skip
"""Every field of `desk.config.settings.DeskSettings`, spelled here so that a listing, which never
imports pydantic (desk/config/reach.py), can judge names too; tests/config/test_setting_names.py
holds the two equal."""

OUR_VARIABLES = frozenset(
    {
        CONFIG_ENV,
        # What a job's agent runs with (activities/agent/process/launch.py): the hook reads them.
        "CODEDESK_JOB", "CODEDESK_TASK", "CODEDESK_REPO", "CODEDESK_WORKTREE",
        "CODEDESK_HOLD_SOCKET", "CODEDESK_HOLD_COMMAND", "CODEDESK_ATTEMPT",
        "CODEDESK_INTERRUPTED", "CODEDESK_MESSAGES",
        # What a result command runs with (activities/hook_deliveries.py).
        "CODEDESK_DELIVERY", "CODEDESK_EVENT",
        # docker-compose.yml's two hosts' names.
        "CODEDESK_HOST_1", "CODEDESK_HOST_2",
        # The tests' own knobs and marks.
        "CODEDESK_TEST_PATIENCE", "CODEDESK_AGENT_CACHE", "CODEDESK_REAPER_TEST",
        "CODEDESK_SCREENSHOTS", "CODEDESK_RECORD_HISTORIES",
    }
)  # fmt: skip
"""`CODEDESK_*` variables that are ours on purpose but no setting: never warned about."""

NOT_FOUND = "docs/reference/settings.md names every setting"


def unknown_settings(environ: Mapping[str, str], toml: Path | None) -> list[str]:
    """A warning for each `CODEDESK_*` variable in `environ` and each key of the TOML file
    `toml` that names no setting (settings ignore them), with the nearest setting's name.

    Names are compared in any case, as the settings read them. A TOML file that cannot be
    read gives no warning here: loading the settings says what is wrong with it.
    """
    warnings = []
    for variable in sorted(environ):
        upper = variable.upper()
        if not upper.startswith(ENV_PREFIX) or upper in OUR_VARIABLES:
            continue
        name = upper.removeprefix(ENV_PREFIX).lower()
        if name not in SETTING_NAMES:
            near = nearest(name, SETTING_NAMES)
            hint = f"did you mean {ENV_PREFIX}{near.upper()}?" if near else f"{NOT_FOUND}."
            warnings.append(f"{variable} is not a codedesk setting and is ignored: {hint}")
    for key in _toml_keys(toml):
        if key.lower() not in SETTING_NAMES:
            near = nearest(key.lower(), SETTING_NAMES)
            hint = f"did you mean {near!r}?" if near else f"{NOT_FOUND}."
            warnings.append(f"{key!r} in {toml} is not a codedesk setting and is ignored: {hint}")
    return warnings


def _toml_keys(toml: Path | None) -> list[str]:
    if toml is None:
        return []
    try:
        with toml.open("rb") as file:
            return list(tomllib.load(file))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
