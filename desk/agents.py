"""Agent presets: command templates for known coding agents, and Claude Code's hold hook.

A preset is only a command template; any command works as the agent. In a template, `{task}`
becomes the task text and `{hook_settings}` the path of a settings file that makes the agent
call `codedesk hold` before each tool runs (written per job by the `run_agent` activity).
"""

from __future__ import annotations

from typing import Any

from desk.errors import AgentCommandError

HOOK_SETTINGS = "{hook_settings}"

PRESETS: dict[str, str] = {
    "claude": "claude -p {task} --permission-mode acceptEdits --settings {hook_settings}",
    "codex": "codex exec --full-auto {task}",
    "aider": "aider --yes-always --message {task}",
    "goose": "goose run --text {task}",
    "opencode": "opencode run {task}",
}

HELD_TOOLS_MATCHER = "Bash|Write|Edit|MultiEdit|NotebookEdit"
"""The Claude Code tools whose calls go through `codedesk hold`."""


def preset_command(name: str) -> str:
    """The command template of preset `name`."""
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(sorted(PRESETS))
        raise AgentCommandError(
            f"There is no agent preset {name!r}: use one of {known}, or --agent-command."
        ) from None


def claude_hook_settings(hold_command: str) -> dict[str, Any]:
    """Claude Code settings whose PreToolUse hook asks `codedesk hold` about every risky tool."""
    return {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": HELD_TOOLS_MATCHER,
                    "hooks": [{"type": "command", "command": hold_command}],
                }
            ]
        }
    }
