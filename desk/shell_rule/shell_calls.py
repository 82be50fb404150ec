"""Which hold classes one tool call of an agent falls in: the rule the hook and the job share.

The standard library only, so that the agent's hook (`python -I -S surfaces/hook.py`) can answer a
harmless call without importing pydantic; `desk.holds.rules.classify_call` wraps it for the worker.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Mapping

from desk.shell_rule.rule import (
    HoldClass,
    argv_hold_classes,
    argv_reaches_outside,
    shell_hold_classes,
    shell_reaches_outside,
)
from desk.shell_rule.shell_paths import Workspace, realpath

SHELL_TOOLS = frozenset({"Bash", "bash", "shell", "Shell", "run_shell_command", "exec"})
"""Tools whose input carries a shell `command` (Claude Code's Bash and its kin, Codex's shell)."""

WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "edit_file"})
"""Tools whose input names one file they write."""

ALWAYS = "tool"
"""The hold class of a tool the settings say always needs a person."""

DEFAULT_HOLD_CLASSES = tuple(hold.value for hold in HoldClass)

EVERY_CLASS = frozenset(HoldClass)


def call_hold_classes(
    tool: str,
    input: Mapping[str, object],
    workspace: str,
    hold_classes: Iterable[str] = (),
    hold_tools: Iterable[str] = (),
) -> tuple[list[str], str]:
    """The hold classes of one call that the configured rules hold, and a one-line action.

    A shell tool's `command` is a string (shell text) or a list of strings (an argument list,
    Codex's `["bash", "-lc", "..."]`); anything else, or a `workdir` that is not a string, is not
    a command this can read and is held for every class, as is a call whose tool is not a string
    or whose input is not a mapping. A write tool's missing or non-string path is held as
    outside the workspace.
    """
    if not isinstance(tool, str) or not isinstance(input, Mapping):
        return sorted(hold.value for hold in EVERY_CLASS), f"Run: {input!r}"[:200]
    held: set[str] = set()
    action = ""
    if tool in set(hold_tools):
        held.add(ALWAYS)
    if tool in SHELL_TOOLS:
        command = input.get("command", input.get("cmd"))
        workdir = input.get("workdir", input.get("cwd"))
        start = _start(workspace, workdir)
        if isinstance(command, str) and start is not None:
            action = f"Run: {command}"
            found = shell_hold_classes(command, workspace, cwd=start)
        elif isinstance(command, list) and start is not None:
            action = "Run: " + shlex.join(str(word) for word in command)
            found = argv_hold_classes(command, workspace, cwd=start)
        else:
            action = f"Run: {command!r}"
            found = EVERY_CLASS
        held |= {hold.value for hold in found}
    elif tool in WRITE_TOOLS:
        path = _text(input, "file_path", "path", "notebook_path")
        action = f"Write {path}"
        inside = os.path.isabs(workspace) and not Workspace(realpath(workspace)).writes_outside(
            path, workspace
        )
        if not path or not inside:
            held.add(HoldClass.OUTSIDE_WORKSPACE.value)
    wanted = set(hold_classes or DEFAULT_HOLD_CLASSES) | {ALWAYS}
    return sorted(held & wanted), action


def call_reaches_outside(tool: str, input: Mapping[str, object], workspace: str) -> bool:
    """Whether a call writes, removes or changes a path outside `workspace` as far as the rule
    reads it (a shell tool's command, a write tool's file): what an agent sandboxed with only
    its workspace writable cannot do on the host. False for what it cannot read."""
    if not isinstance(tool, str) or not isinstance(input, Mapping) or not os.path.isabs(workspace):
        return False
    if tool in SHELL_TOOLS:
        command = input.get("command", input.get("cmd"))
        start = _start(workspace, input.get("workdir", input.get("cwd")))
        if start is None:
            return False
        if isinstance(command, str):
            return shell_reaches_outside(command, workspace, cwd=start)
        if isinstance(command, list):
            return argv_reaches_outside(command, workspace, cwd=start)
        return False
    if tool in WRITE_TOOLS:
        path = _text(input, "file_path", "path", "notebook_path")
        return bool(path) and Workspace(realpath(workspace)).writes_outside(path, workspace)
    return False


def _start(workspace: str, workdir: object) -> str | None:
    """Where a call's command starts: the workspace, or its `workdir` (None: unreadable)."""
    if workdir is None or workdir == "":
        return workspace
    if not isinstance(workdir, str):
        return None
    return os.path.join(workspace, workdir)


def _text(input: Mapping[str, object], *names: str) -> str:
    for name in names:
        value = input.get(name)
        if isinstance(value, str):
            return value
    return ""
