"""Which of an agent's tool calls must wait for a person: pure rules, standard library only.

The agent's hook (surfaces/hook.py) runs these before each tool call, isolated from the
worktree, so this module imports nothing but the standard library and the shell rule. The
worker runs the same rules again on the call's full input before it asks the job.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping

from desk.policy import HoldClass, shell_hold_classes
from desk.policy_paths import Workspace, realpath

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the hook's start-up never imports typing
if TYPE_CHECKING:
    from typing import Any

SHELL_TOOLS = frozenset({"Bash", "bash", "shell", "Shell", "run_shell_command", "exec"})
"""Tools whose input carries a shell `command` (Claude Code's Bash and its kin)."""

WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "write_file", "edit_file"})
"""Tools whose input names one file they write."""

COMMAND_KEYS = ("command", "cmd", "commands", "argv", "args", "script", "shell")
"""Input keys that mark a tool as one that runs commands, whatever its name."""

ALWAYS = "tool"
"""The hold class of a tool the settings say always needs a person."""

UNREADABLE = "unreadable"
"""The hold class of a call whose shape the rules do not understand: always held."""

DEFAULT_HOLD_CLASSES = tuple(hold.value for hold in HoldClass)


class Verdict:
    """Why a call must wait for a person (empty `classes`: it may run), and a one-line action."""

    __slots__ = ("classes", "action")

    def __init__(self, classes: tuple[str, ...], action: str) -> None:
        self.classes = classes
        self.action = action


def classify(
    tool: str,
    input: Any,
    workspace: str,
    hold_classes: Iterable[str] = (),
    hold_tools: Iterable[str] = (),
) -> Verdict:
    """The hold classes of one call that the configured rules hold. Never raises.

    A call the rules cannot read (an input that is not an object, a shell `command` that is
    neither text nor a list of words, an unknown tool that runs commands) is held as
    `unreadable`, whatever the settings say: a guard that cannot decide refuses.
    """
    try:
        held, action = _classes(tool, input, workspace)
    except Exception as error:  # A rule bug must not let a call through unread.
        held, action = {UNREADABLE}, f"{tool}: the rules failed ({type(error).__name__})"
    if tool in set(hold_tools):
        held.add(ALWAYS)
    wanted = set(hold_classes) or set(DEFAULT_HOLD_CLASSES)
    wanted |= {ALWAYS, UNREADABLE}
    return Verdict(classes=tuple(sorted(held & wanted)), action=action)


def _classes(tool: str, input: Any, workspace: str) -> tuple[set[str], str]:
    if not isinstance(input, Mapping):
        return {UNREADABLE}, f"{tool} with an input that is not an object"
    if tool in SHELL_TOOLS:
        return _shell(tool, input, workspace)
    if tool in WRITE_TOOLS:
        path = next((input[k] for k in ("file_path", "path", "notebook_path") if k in input), None)
        if not isinstance(path, str) or not path:
            return {UNREADABLE}, f"{tool} with no file path"
        workspace_root = Workspace(realpath(workspace))
        if workspace_root.writes_outside(path, workspace):
            return {HoldClass.OUTSIDE_WORKSPACE.value}, f"Write {path}"
        return set(), f"Write {path}"
    if any(key in input for key in COMMAND_KEYS):
        return {UNREADABLE}, f"{tool}: an unknown tool that runs commands"
    return set(), ""


def _shell(tool: str, input: Mapping[str, Any], workspace: str) -> tuple[set[str], str]:
    command = input.get("command", input.get("cmd"))
    if isinstance(command, list) and command and all(isinstance(w, str) for w in command):
        # An argv list (Codex's form): the rule reads it as the shell would quote it.
        command = shlex.join(command)
    if not isinstance(command, str):
        return {UNREADABLE}, f"{tool} with a command that is not text"
    held = {hold.value for hold in shell_hold_classes(command, workspace)}
    return held, f"Run: {command}"


def canonical_json(value: Any) -> str:
    """Sorted keys, no insignificant white space: equal inputs give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def call_digest(tool: str, input: Any) -> str:
    """The SHA-256 of the tool and its canonical input: identical calls share it."""
    import hashlib  # here, not at the top: the hook's fast path never needs it

    text = f"{tool}\0{canonical_json(input)}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def preview(input: Any, cap: int) -> dict[str, Any]:
    """A bounded copy of a call's input for a card: long texts cut, at most `cap` characters.

    Each top-level field keeps up to its share of `cap` (a text cut says how much was cut);
    a field that is not text is shown as its JSON, cut the same way.
    """
    if not isinstance(input, Mapping):
        return {"input": _cut(canonical_json(input), cap)}
    if len(canonical_json(input)) <= cap:
        return dict(input)
    keys = list(input)[:MAX_PREVIEW_FIELDS]
    share = max(cap // max(len(keys), 1), MIN_FIELD_CHARS)
    shown: dict[str, Any] = {}
    for key in keys:
        value = input[key]
        text = value if isinstance(value, str) else canonical_json(value)
        if isinstance(value, str) or len(text) > share:
            shown[str(key)[:MIN_FIELD_CHARS]] = _cut(text, share)
        else:
            shown[str(key)[:MIN_FIELD_CHARS]] = value
    if len(input) > len(keys):
        shown["…"] = f"{len(input) - len(keys)} more fields not shown"
    return shown


MAX_PREVIEW_FIELDS = 20
MIN_FIELD_CHARS = 80


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters]"
