"""Each agent CLI's hook input and output, translated to and from the hold hook's one call.

The hold hook (surfaces/hook.py) has one path: read a call, classify it, ask the job, answer.
Only the edges differ per CLI, and they are here, as data in and data out:

- `plain` (`codedesk hold`): `{"tool", "input", "cwd"}` in; exit 0 or 2 (reason on stderr) out.
- `claude`: Claude Code's PreToolUse input (`tool_name`, `tool_input`, `cwd`); out, its
  decision JSON as well (`permissionDecision` deny, or allow for a call a person approved).
- `codex`: codex's PreToolUse input, in Claude Code's shape (its shell tool is `Bash` with a
  `command` string and the `cwd` it runs in; `apply_patch` carries the patch as `command`).
  codex's `write_stdin` (input typed into a command it started) never reaches its hook, so a
  command that starts a shell or interpreter session reading its commands from stdin is a
  `codex_session` call, which the rule holds for every class. Out: exit 2 and the reason on
  stderr, never JSON: codex 0.171 refuses only that way, and treats a decision it does not
  support (`allow`) as a failed hook.
- `opencode`: what codedesk's opencode plugin sends from `tool.execute.before`
  (`{"tool", "args", "directory"}`, opencode's own tool names and arguments). Out: exit 0, or
  exit 2 and the reason on stderr, which the plugin throws as the tool's error.

Translated calls use the names the shell rule knows (`Bash`, `Write`, `Edit`, a `shell` argv),
so every CLI's calls meet one rule, one kind of card and one kind of report entry. Standard
library only: this runs in the hook's isolated start-up.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the hook's start-up never imports typing
if TYPE_CHECKING:
    from typing import Any

PLAIN = "plain"
CLAUDE = "claude"
CODEX = "codex"
OPENCODE = "opencode"
FORMS = (PLAIN, CLAUDE, CODEX, OPENCODE)

OPENCODE_FILE_TOOLS = {"edit": "Edit", "write": "Write", "multiedit": "MultiEdit"}
"""opencode's tools that write one file (`filePath`), and the shell rule's name for each."""
PATCH_TOOLS = {CODEX: ("apply_patch",), OPENCODE: ("patch", "apply_patch")}
"""Each CLI's patch tools, whose patch text is read as `apply_patch PATCH` (the files it names):
opencode 1.18 offers a model of the GPT family `apply_patch` (`patchText`) instead of its
`edit` and `write`."""
PATCH_KEYS = ("command", "patchText", "patch", "input")
SESSION = "codex_session"
SESSION_PROGRAMS = frozenset(
    {"bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox"}
    | {"python", "python3", "node", "nodejs", "perl", "ruby", "irb", "php", "lua", "su", "sudo"}
)
"""Programs that, given only options, read the commands they run from stdin."""


class Call:
    """One tool call as the hook asks about it: the tool, its input, where it runs."""

    __slots__ = ("tool", "input", "cwd")

    def __init__(self, tool: Any, input: Any, cwd: Any) -> None:
        self.tool = tool
        self.input = input
        self.cwd = cwd


def read_call(form: str, document: dict[str, Any]) -> Call:
    """The call a CLI's hook input describes, in the names the shell rule reads."""
    if form == OPENCODE:
        return _opencode(document)
    tool = document.get("tool", document.get("tool_name"))
    call = document["input"] if "input" in document else document.get("tool_input", {})
    if form == CODEX and tool in PATCH_TOOLS[CODEX]:
        return Call("shell", _patch_argv(call), document.get("cwd"))
    if form == CODEX and tool == "Bash" and isinstance(call, dict) and _starts_a_session(call):
        return Call(SESSION, call, document.get("cwd"))
    return Call(tool, call, document.get("cwd"))


def _starts_a_session(call: dict[str, Any]) -> bool:
    """Whether a codex command starts a shell or interpreter that reads its commands from
    stdin (`bash`, `python3 -i`, `sh -s`): what codex types into it later is never asked about."""
    import os
    import shlex

    command = call.get("command")
    try:
        words = shlex.split(command) if isinstance(command, str) else []
    except ValueError:
        return False  # the rule reads it, and holds what it cannot parse
    while words and "=" in words[0] and not words[0].startswith("="):
        words = words[1:]  # VAR=value before the program
    if not words or os.path.basename(words[0]) not in SESSION_PROGRAMS:
        return False
    return all(word.startswith("-") for word in words[1:])


def _opencode(document: dict[str, Any]) -> Call:
    tool, args, cwd = document.get("tool"), document.get("args", {}), document.get("directory")
    if tool in PATCH_TOOLS[OPENCODE]:
        return Call("shell", _patch_argv(args), cwd)
    if tool in OPENCODE_FILE_TOOLS and isinstance(args, dict):
        rest = {key: value for key, value in args.items() if key != "filePath"}
        return Call(OPENCODE_FILE_TOOLS[tool], {"file_path": args.get("filePath"), **rest}, cwd)
    return Call(tool, args, cwd)


def _patch_argv(call: Any) -> Any:
    """A patch tool's input as the command `apply_patch PATCH`; an odd one is kept under `input`
    with no command, so the rule holds it for every class (never read as shell text)."""
    if isinstance(call, dict):
        patch = next((call[key] for key in PATCH_KEYS if isinstance(call.get(key), str)), None)
        if patch is not None:
            return {"command": ["apply_patch", patch]}
    return {"input": call}


def approved_output(form: str, said: str) -> str:
    """What stdout carries for a call a person approved ("" for nothing)."""
    return _claude_json("allow", said) if form == CLAUDE else ""


def deferred_output() -> str:
    """Claude Code's decision that defers the call: the CLI ends (`stop_reason:
    "tool_deferred"`) without running it, and asks the hook again when it is resumed."""
    import json

    output = {"hookEventName": "PreToolUse", "permissionDecision": "defer"}
    return json.dumps({"hookSpecificOutput": output}) + "\n"


def refused_output(form: str, reason: str) -> str:
    """What stdout carries besides exit 2 and the reason on stderr ("" for nothing)."""
    return _claude_json("deny", reason) if form == CLAUDE else ""


def _claude_json(decision: str, reason: str) -> str:
    import json

    output = {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
    }
    return json.dumps({"hookSpecificOutput": output}) + "\n"
