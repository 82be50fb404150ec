"""Where settings come from, and the names, defaults and plain rules both of their readers use.

Settings have two readers: `desk.config.settings.DeskSettings`, the one parser of every
setting, and `desk.config.reach`, which reads the few a listing needs without pydantic (whose
import costs a listing about three times what the rest of its start does). Each takes the
sources, the defaults, the least values and the plain rules from here, so each is spelled
once; this module imports nothing but the standard library.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

ENV_PREFIX = "CODEDESK_"
CONFIG_ENV = "CODEDESK_CONFIG"
CONFIG_FILE = "codedesk.toml"

DEFAULT_HOME = "~/.codedesk"
DEFAULT_NAMESPACE = "default"
DEFAULT_TASK_QUEUE = "codedesk"
"""The shared task queue (the other queues are named in desk/names.py)."""
DEFAULT_LIST_LIMIT = 50
LIST_LIMIT_MIN = 1
DEFAULT_CARD_VALUE_CHARS = 4000
CARD_VALUE_CHARS_MIN = 100
DEFAULT_WORK_BUDGET = timedelta(hours=1)
DEFAULT_WORK_BUDGET_MAX = timedelta(days=1)
DEFAULT_HOLD_WAIT = timedelta(minutes=10)
DEFAULT_HOOK_TIMEOUT = timedelta(minutes=11)
"""The settings a rule across settings compares (a budget within its bound, the hold wait within
the hook's timeout), which a plain check judges too (desk/config/plain_values.py)."""

SANDBOX_MODES = ("auto", "bwrap", "none")
"""The values of the sandbox setting."""
SERVER_SYNC_MODES = ("normal", "full")
"""How the embedded server's SQLite file commits (`workers/devserver.py`, `server_sync_pragma`)."""
DEFAULT_SERVER_SYNC = "normal"

NOT_BLANK = ("namespace", "task_queue")
"""Settings of text that must not be blank."""

TLS_SETTINGS = frozenset(
    {
        "temporal_tls_ca",
        "temporal_tls_cert",
        "temporal_tls_key",
        "temporal_tls_server_name",
        "temporal_api_key",
    }
)
"""Settings of TLS to the frontend: given any of them, a listing reads every setting."""


def config_file() -> Path | None:
    """The TOML file settings are read from, if any."""
    named = os.environ.get(CONFIG_ENV)
    if named:
        return Path(named).expanduser()
    local = Path(CONFIG_FILE)
    return local if local.is_file() else None


def one_of(value: str, choices: tuple[str, ...]) -> str:
    """`value` when it is one of `choices`; else the error that lists them."""
    if value not in choices:
        raise ValueError(f"must be one of {', '.join(choices)}")
    return value


def blank(value: str) -> bool:
    """Whether a text setting is empty or only spaces (refused where a name is needed)."""
    return not value.strip()


def not_a_directory(path: Path) -> bool:
    """Whether a directory setting names something that exists and is no directory, or that
    cannot be looked at (a name too long for the system, a `~` with no home to expand to)."""
    try:
        found = path.expanduser()
        return found.exists() and not found.is_dir()
    except (OSError, RuntimeError):
        return True
