"""How each agent CLI is told to run codedesk's hold hook before a tool runs, per job.

Claude Code gets a settings file (`{hook_settings}`), codex a `-c` config override
(`{codex_hooks}`); opencode's plugin is activities/agent/setup/opencode_plugin.py. Each runs the
hook by absolute interpreter and file path, isolated (`-I`: no working directory, no user site,
no PYTHON* variables), so a worktree's own `desk/` or `workflows/` package is never imported,
and without `site` (`-S`): the hook needs the standard library and codedesk's pure rule
modules only, which it finds beside its own file, after the standard library. `site` was a
third of every tool call's hook: on a quiet machine `python -I -c pass` took 31 ms against 11
with `-S`, and the hook 38 ms by module against 28 by its file without `site` (30 interleaved
runs each, 2026-12-07). `|| exit 2`
turns an interpreter that cannot even start into a refusal, and the hook's `timeout` is longer
than the hold wait, so the CLI never times the hook out (a timed-out hook does not block in
Claude Code before 2.1.295 nor in codex 0.171: the call would run). Where the CLI can refuse on
its own when the hook fails, it is told to: Claude Code's `onFailure: "block"` (2.1.295 and
later; 2.1.197 ignores the key and still runs the hook).
"""

from __future__ import annotations

import importlib.util
import json
import math
import shlex
import sys
from datetime import timedelta
from functools import cache
from pathlib import Path

from desk.agents.presets import claude_hook_settings, codex_hooks_override
from desk.config.basics.durations import format_duration
from desk.errors import AgentCommandError
from desk.holds.protocol import HOOK_MARGIN_SECONDS

HOOK_SETTINGS_FILE = "hook-settings.json"
COMMIT_RULES = ("Bash(git add:*)", "Bash(git commit:*)", "Bash(git status:*)")
"""Claude Code permission rules a job needs: the agent must commit its work (codedesk
integrates commits), and with the hook giving no decision Claude Code's own rules decide."""


@cache
def hook_script() -> str:
    """The hook's own file (surfaces/hook.py as installed), found without importing it."""
    spec = importlib.util.find_spec("surfaces.hook")
    if spec is None or spec.origin is None:
        raise AgentCommandError(
            "codedesk's hold hook (surfaces/hook.py) is not installed beside this worker; "
            "reinstall codedesk (`pip install codedesk`)."
        )
    return spec.origin


def hook_argv(python: str = sys.executable, form: str = "claude") -> list[str]:
    """The hook's command line: the interpreter, isolated and without `site`, on its file."""
    return [python, "-I", "-S", hook_script(), "--format", form]


def hook_command(python: str = sys.executable, form: str = "claude") -> str:
    """The shell command an agent CLI runs as its hook: fails closed even if Python cannot."""
    return f"{shlex.join(hook_argv(python, form))} || exit 2"


def hook_timeout_seconds(hold_wait: timedelta, hook_timeout: timedelta | None = None) -> int:
    """The agent CLI's timeout for the hook; refuse a hold wait that does not fit in it.

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
    return math.ceil(hook_timeout.total_seconds())


def write_claude_hook_settings(
    job_folder: Path,
    hold_wait: timedelta,
    hook_timeout: timedelta | None = None,
    python: str = sys.executable,
) -> Path:
    """Write `<job_folder>/hook-settings.json`; refuse a hold wait that does not fit."""
    timeout = hook_timeout_seconds(hold_wait, hook_timeout)
    settings = claude_hook_settings(hook_command(python))
    for entry in settings["hooks"]["PreToolUse"]:
        for hook in entry["hooks"]:
            hook["timeout"] = timeout
            hook["onFailure"] = "block"
    settings["permissions"] = {"allow": list(COMMIT_RULES)}
    job_folder.mkdir(parents=True, exist_ok=True)
    path = job_folder / HOOK_SETTINGS_FILE
    path.write_text(json.dumps(settings, indent=2) + "\n")
    return path


def codex_hooks(
    hold_wait: timedelta, hook_timeout: timedelta | None = None, python: str = sys.executable
) -> str:
    """What `{codex_hooks}` becomes: codex's PreToolUse hook running the hold hook.

    codex 0.171 runs a hook only once a person trusted it, or under
    `--dangerously-bypass-hook-trust` (in the preset), and refuses a call only on exit 2.
    """
    timeout = hook_timeout_seconds(hold_wait, hook_timeout)
    return codex_hooks_override(hook_command(python, "codex"), timeout)
