"""Claude Code's settings file for a job: its PreToolUse hook runs codedesk's hold hook.

The hook runs by absolute interpreter path, isolated (`-I`: no working directory, no user site,
no PYTHON* variables), so a worktree's own `desk/` or `workflows/` package is never imported.
`|| exit 2` turns an interpreter that cannot even start into a refusal, and the hook's
`timeout` is longer than the hold wait, so Claude Code never times the hook out (a timed-out
hook does not block: the call would run).
"""

from __future__ import annotations

import json
import math
import shlex
import sys
from datetime import timedelta
from pathlib import Path

from desk.agents import claude_hook_settings
from desk.config.durations import format_duration
from desk.errors import AgentCommandError
from desk.holds.protocol import HOOK_MARGIN_SECONDS

HOOK_SETTINGS_FILE = "hook-settings.json"
COMMIT_RULES = ("Bash(git add:*)", "Bash(git commit:*)", "Bash(git status:*)")
"""Claude Code permission rules a job needs: the agent must commit its work (codedesk
integrates commits), and with the hook giving no decision Claude Code's own rules decide."""


def hook_command(python: str = sys.executable, form: str = "claude") -> str:
    """The shell command an agent CLI runs as its hook: fails closed even if Python cannot."""
    return f"{shlex.quote(python)} -I -m surfaces.hook --format {form} || exit 2"


def write_claude_hook_settings(
    job_folder: Path,
    hold_wait: timedelta,
    hook_timeout: timedelta | None = None,
    python: str = sys.executable,
) -> Path:
    """Write `<job_folder>/hook-settings.json`; refuse a hold wait that does not fit.

    `hook_timeout` is CODEDESK_HOOK_TIMEOUT; None gives the hold wait plus the margin.
    """
    margin = timedelta(seconds=HOOK_MARGIN_SECONDS)
    if hook_timeout is None:
        hook_timeout = hold_wait + margin
    if hold_wait + margin > hook_timeout:
        raise AgentCommandError(
            f"The hold wait ({format_duration(hold_wait)}, CODEDESK_HOLD_WAIT) does not fit in "
            f"the agent's hook timeout ({format_duration(hook_timeout)}, CODEDESK_HOOK_TIMEOUT) "
            f"with {HOOK_MARGIN_SECONDS}s to spare; a timed-out hook lets the call run. Shorten "
            "the wait or lengthen the timeout."
        )
    settings = claude_hook_settings(hook_command(python))
    for entry in settings["hooks"]["PreToolUse"]:
        for hook in entry["hooks"]:
            hook["timeout"] = math.ceil(hook_timeout.total_seconds())
    settings["permissions"] = {"allow": list(COMMIT_RULES)}
    job_folder.mkdir(parents=True, exist_ok=True)
    path = job_folder / HOOK_SETTINGS_FILE
    path.write_text(json.dumps(settings, indent=2) + "\n")
    return path
