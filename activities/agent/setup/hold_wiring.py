"""Where a job's agent command asks for the hold hook, wire it in: per CLI, its own way.

`{hook_settings}` becomes Claude Code's settings file, `{codex_hooks}` codex's hook override,
and a command that runs opencode gets the job's plugin (named in its environment once the
launch is planned). See activities/agent/process/hook_settings.py and opencode_plugin.py.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from activities.agent.process.hook_settings import codex_hooks, write_claude_hook_settings
from activities.agent.process.launch import passed_environment
from activities.agent.setup.opencode_plugin import (
    CONFIG_VARIABLE,
    config_content,
    held_rules,
    owner_config,
    write_opencode_plugin,
)
from desk.agents.presets import CODEX_HOOKS, HOOK_SETTINGS, preset_for
from desk.config.settings import DeskSettings


@dataclass(frozen=True)
class HoldWiring:
    """The agent's argv with its hook wired in, and the job file its sandbox must let it read
    (Claude Code's settings or opencode's plugin; None for codex, whose hook is inline)."""

    argv: list[str]
    hook_file: Path | None
    opencode_plugin: Path | None = None

    def complete(self, env: dict[str, str]) -> None:
        """Name opencode's plugin in the agent's environment, over the owner's own value."""
        if self.opencode_plugin is not None:
            owner = owner_config(env.get(CONFIG_VARIABLE))
            env[CONFIG_VARIABLE] = config_content(self.opencode_plugin, owner)


def wire_holds(argv: list[str], folder: Path, settings: DeskSettings) -> HoldWiring:
    """The hold hook wired into `argv` for the job whose folder is `folder`."""
    hold_wait, hook_timeout = settings.hold_wait, settings.hook_timeout
    if any(CODEX_HOOKS in part for part in argv):
        hooks = codex_hooks(hold_wait, hook_timeout)
        argv = [part.replace(CODEX_HOOKS, hooks) for part in argv]
    if any(HOOK_SETTINGS in part for part in argv):
        path = write_claude_hook_settings(folder, hold_wait, hook_timeout)
        return HoldWiring([part.replace(HOOK_SETTINGS, str(path)) for part in argv], path)
    preset = preset_for(argv)
    if preset is not None and preset.holds_by_plugin:
        passed = passed_environment(settings.agent_env, dict(os.environ))
        owner = owner_config(passed.get(CONFIG_VARIABLE))
        restored = held_rules(owner)
        plugin = write_opencode_plugin(folder, hold_wait, hook_timeout, restored=restored)
        return HoldWiring(argv, plugin, plugin)
    return HoldWiring(argv, None)
