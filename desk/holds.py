"""Which of an agent's tool calls must wait for a person: the shell rule and the hold rules.

The shell rule (desk/policy.py) is a heuristic guard, not a sandbox. It resolves symlinks, so
the job runs this in an activity (`classify_call`), never in workflow code.
"""

from __future__ import annotations

from typing import Any

from desk.approvals import Classification, ClassifyInput
from desk.policy import HoldClass, shell_hold_classes
from desk.policy_paths import Workspace, realpath

SHELL_TOOLS = frozenset({"Bash", "bash", "shell", "Shell", "run_shell_command", "exec"})
"""Tools whose input carries a shell `command` (Claude Code's Bash and its kin)."""

WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "edit_file"})
"""Tools whose input names one file they write."""

ALWAYS = "tool"
"""The hold class of a tool the settings say always needs a person."""

CREDENTIAL = "credential"
"""The hold class of a call that held a credential: it was scrubbed before it was classified,
so the rule saw less than will run, and a person decides (fail closed)."""

DEFAULT_HOLD_CLASSES = tuple(hold.value for hold in HoldClass)


def classify_call(request: ClassifyInput) -> Classification:
    """The hold classes of one call that the configured rules hold, and a one-line action."""
    held: set[str] = set()
    action = ""
    if request.tool in request.hold_tools:
        held.add(ALWAYS)
    if request.scrubbed:
        held.add(CREDENTIAL)
    if request.tool in SHELL_TOOLS:
        command = _text(request.input, "command", "cmd")
        action = f"Run: {command}"
        held |= {hold.value for hold in shell_hold_classes(command, request.workspace)}
    elif request.tool in WRITE_TOOLS:
        path = _text(request.input, "file_path", "path", "notebook_path")
        action = f"Write {path}"
        workspace = Workspace(realpath(request.workspace))
        if not path or workspace.writes_outside(path, request.workspace):
            held.add(HoldClass.OUTSIDE_WORKSPACE.value)
    wanted = set(request.hold_classes or DEFAULT_HOLD_CLASSES) | {ALWAYS, CREDENTIAL}
    return Classification(classes=sorted(held & wanted), action=action)


def _text(input: dict[str, Any], *names: str) -> str:
    for name in names:
        value = input.get(name)
        if isinstance(value, str):
            return value
    return ""
