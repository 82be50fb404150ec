"""A tool call as the hook and the hold channel read it: the call rule, a digest, a preview.

The agent's hook (surfaces/hook.py) runs `classify` before each tool call, isolated from the
worktree, so this module imports nothing but the standard library and the rule modules. The
worker runs the same `classify` again on the call's full input before it asks the job.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from desk.shell_rule.shell_calls import (
    ALWAYS,
    DEFAULT_HOLD_CLASSES,
    SHELL_TOOLS,
    WRITE_TOOLS,
    call_hold_classes,
    call_reaches_outside,
)

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the hook's start-up never imports typing
if TYPE_CHECKING:
    from typing import Any

COMMAND_KEYS = ("command", "cmd", "commands", "argv", "args", "script", "shell")
"""Input keys that mark a tool as one that runs commands, whatever its name."""

KNOWN_TOOLS = SHELL_TOOLS | WRITE_TOOLS


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
    """The hold classes of one call that the configured rules hold (`desk.shell_rule.shell_calls`).

    Never raises. What the rule cannot read is held for every class it may be held for: a
    rule that fails, and an unknown tool with a `command`-like field (a tool that runs
    commands the rule does not know how to read).
    """
    wanted = set(hold_classes or DEFAULT_HOLD_CLASSES) | {ALWAYS}
    every = tuple(sorted(set(DEFAULT_HOLD_CLASSES) & wanted))
    try:
        classes, action = call_hold_classes(tool, input, workspace, hold_classes, hold_tools)
    except Exception as error:  # A rule bug must not let a call through unread.
        return Verdict(every, f"{tool}: the rule failed ({type(error).__name__})")
    if (
        not classes
        and tool not in KNOWN_TOOLS
        and isinstance(input, Mapping)
        and any(key in input for key in COMMAND_KEYS)
    ):
        return Verdict(every, f"{tool}: a tool that runs commands the rule cannot read")
    return Verdict(tuple(classes), action)


def reaches_outside(tool: str, input: Any, workspace: str) -> bool:
    """Whether the call writes or removes outside `workspace`, as far as the rule can tell
    (`desk.shell_rule.shell_calls.call_reaches_outside`); never raises: a failure says no."""
    try:
        return call_reaches_outside(tool, input, workspace)
    except Exception:
        return False


def with_cwd(tool: str, input: Any, cwd: Any) -> Any:
    """The call as the rule reads it where the agent CLI runs it in `cwd` (Claude Code's Bash
    keeps a `cd` from one call to the next and names the directory in its hook input)."""
    if (
        isinstance(cwd, str)
        and cwd
        and tool in SHELL_TOOLS
        and isinstance(input, Mapping)
        and "workdir" not in input
        and "cwd" not in input
    ):
        return {**input, "workdir": cwd}
    return input


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
