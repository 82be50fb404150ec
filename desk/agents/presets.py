"""Agent presets: the command of each known coding agent CLI, and Claude Code's hold hook.

A preset is a command template and what codedesk knows about the CLI behind it: the version it
was proven with, the files the CLI writes for itself in the worktree (kept out of git through
the clone's `info/exclude`), whether it turns the CLI's own guards off (then it runs only inside
codedesk's sandbox, unless the owner opts in), and the output by which it says it could not
work although it exits 0. Any command works as the agent too. In a template, `{task}` becomes
the task text, `{hook_settings}` the path of a Claude Code settings file that makes the agent
call codedesk's hold hook before each tool runs (written per job by the `run_agent` activity),
and `{codex_hooks}` codex's `hooks.PreToolUse=[...]` config override that does the same for
codex. opencode needs no placeholder: any command that runs it gets codedesk's plugin (see
`Preset.holds_by_plugin`). Every preset passes the task where the CLI cannot read it as an
option (after `--`, or glued to its option as `--message=TEXT`), but `claude`, which reads it
as the first message of its streaming input (a command with no `{task}`: run_agent writes the
task, then the job's messages, on its standard input; desk/agents/message_seams.py).

Every preset hands the agent the job's standing instructions (desk/agents/standing_instructions.py)
the way its CLI takes a system or developer prompt, never through the repository's files, and says
which way in `instructions_in`. A template names them with a placeholder: `{instructions}` (the
text), `{instructions_file}` (the path of a file holding it), `{instructions_toml}` (the text as a
TOML string, for an option such as codex's `-c key=value`), `{instructions_config}` (the path of a
JSON config whose `instructions` list names that file, opencode's form) or `{instructions_json}`
(that config's JSON text). A preset may also set variables for its CLI (`env`), with the same
placeholders in their values; one it names in `merged_env` holds a JSON config that is merged
over the owner's own value of it (lists added to, objects updated), never refused nor dropped.
A custom command sets its own through `env` (`env OPENCODE_CONFIG={instructions_config} opencode
run -- {task}`).

`{python}` is the worker's own Python, the one codedesk runs on: the `demo` preset runs codedesk's
deterministic demo agent with it (surfaces/demo_agent.py: no model, no network), so a new user can
try jobs, holds and shipping before any agent CLI is installed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desk.errors import AgentCommandError

HOOK_SETTINGS = "{hook_settings}"
CODEX_HOOKS = "{codex_hooks}"
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
TASK = "{task}"
PYTHON = "{python}"
"""The worker's own Python interpreter (`sys.executable` where the agent starts)."""
INSTRUCTIONS = "{instructions}"
INSTRUCTIONS_FILE = "{instructions_file}"
INSTRUCTIONS_TOML = "{instructions_toml}"
INSTRUCTIONS_CONFIG = "{instructions_config}"
INSTRUCTIONS_JSON = "{instructions_json}"
INSTRUCTIONS_PLACEHOLDERS = (
    INSTRUCTIONS,
    INSTRUCTIONS_FILE,
    INSTRUCTIONS_TOML,
    INSTRUCTIONS_CONFIG,
    INSTRUCTIONS_JSON,
)
"""Where a command or a preset's variable takes the job's standing instructions."""

GUARDS_OFF_FLAGS = frozenset(
    {
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-skip-permissions",
        "--yolo",
    }
)
"""Options by which an agent CLI turns its own approvals and sandbox off."""


@dataclass(frozen=True)
class Preset:
    """A known agent CLI: how codedesk starts it and what it knows about it."""

    name: str
    command: str
    program: str
    proven_version: str
    """The version the preset was proven with by the real-CLI tests ("" if never run)."""
    package: str
    """Where the CLI comes from (a registry package), for `codedesk doctor`'s advice."""
    own_files: tuple[str, ...] = ()
    """Git exclude patterns of the files the CLI writes for itself in the worktree."""
    cannot_work: tuple[str, ...] = ()
    """Regular expressions of an output line meaning it could not work, though it exits 0."""
    worked: tuple[str, ...] = ()
    """Regular expressions of an output line meaning the model answered after all: an earlier
    sign that it could not work was a retry that succeeded."""
    gives_up: tuple[str, ...] = ()
    """Regular expressions of an output line after which the CLI waits forever without working
    (codedesk stops it then)."""
    instructions_in: str = ""
    """How the CLI gets the standing instructions, in words (the guide's table shows it)."""
    env: tuple[tuple[str, str], ...] = ()
    """Variables the preset sets for its CLI (name, value template), e.g. opencode's config."""
    merged_env: tuple[str, ...] = ()
    """Those of `env` whose value is a JSON config merged over the owner's own value of the
    variable (opencode merges `OPENCODE_CONFIG_CONTENT` with its other config files)."""
    holds_by_plugin: bool = False
    """codedesk wires its holds into every command that runs this CLI through the CLI's own
    plugin configuration (opencode), so no placeholder is needed in the command."""
    messages_in: str = ""
    """How a message a person sends the job reaches the CLI, in words (the README's table)."""
    notes: str = ""
    built_in: bool = False
    """codedesk's own agent, run on the worker's Python (`{python}`): nothing to install."""

    def sign_in(self, line: str, patterns: tuple[str, ...]) -> str | None:
        """This line of its output, without terminal escapes, when it matches `patterns` (a
        sign that the agent could not work, or that it worked after all); else None."""
        plain = ANSI_ESCAPE.sub("", line)
        if any(re.search(pattern, plain) for pattern in patterns):
            return plain.strip()
        return None

    @property
    def guards_off(self) -> bool:
        """Whether the command turns the CLI's own approvals and sandbox off."""
        return bool(guards_off_flags(self.command.split()))


AGENT_PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            name="claude",
            command=(
                "claude -p --input-format stream-json --output-format stream-json --verbose"
                " --replay-user-messages --permission-mode acceptEdits --settings {hook_settings}"
                " --append-system-prompt={instructions}"
            ),
            program="claude",
            proven_version="2.1.197",
            package="npm @anthropic-ai/claude-code",
            instructions_in="`--append-system-prompt`: appended to its system prompt",
            messages_in="live, on its streaming input (read at the model's next step)",
        ),
        Preset(
            name="codex",
            command=(
                "codex exec --json --dangerously-bypass-approvals-and-sandbox"
                " --dangerously-bypass-hook-trust --enable hooks -c {codex_hooks}"
                " -c developer_instructions={instructions_toml} -- {task}"
            ),
            program="codex",
            proven_version="0.171.0",
            package="npm @openai/codex",
            instructions_in=(
                "`-c developer_instructions=`: its developer message (the config key"
                " `model_instructions_file` would replace codex's own system prompt)"
            ),
            gives_up=(r"^ERROR: Reconnecting\.\.\. waiting for network",),
            messages_in="when its run ends: its thread resumed with them (`exec resume`)",
            notes="its own sandbox cannot commit in a worktree: codedesk's sandbox replaces it",
        ),
        Preset(
            name="aider",
            command=(
                "aider --yes-always --no-gitignore --no-check-update --no-show-release-notes"
                " --analytics-disable --chat-history-file /dev/null --input-history-file"
                " /dev/null --read={instructions_file} --message={task}"
            ),
            program="aider",
            proven_version="0.86.2",
            package="PyPI aider-chat",
            instructions_in=(
                "`--read`: a read-only file in its chat (aider has no system prompt option;"
                " this is its way for conventions)"
            ),
            own_files=(".aider*",),
            messages_in="when its run ends: a new run with the task and them",
            cannot_work=(r"^litellm\.\w*Error:",),
            worked=(r"^Tokens: [\d.]+k? sent",),
        ),
        Preset(
            name="opencode",
            command="opencode run -- {task}",
            program="opencode",
            proven_version="1.18.33",
            package="npm opencode-ai",
            instructions_in=(
                "`OPENCODE_CONFIG_CONTENT`: a config whose `instructions` names the file, added"
                " to its system prompt (merged with the owner's own config and its instructions)"
            ),
            env=(("OPENCODE_CONFIG_CONTENT", INSTRUCTIONS_JSON),),
            merged_env=("OPENCODE_CONFIG_CONTENT",),
            cannot_work=(r"^Error: Cannot connect to API",),
            holds_by_plugin=True,
            messages_in="when its run ends: its last session continued with them (`--continue`)",
        ),
        Preset(
            name="goose",
            command="goose run --text={task}",
            program="goose",
            proven_version="",
            package="Block's download script (not on a package registry)",
            instructions_in="none yet (untested)",
            messages_in="when its run ends: a new run with the task and them",
            notes="untested: goose cannot be installed from a package registry",
        ),
        Preset(
            name="demo",
            command=f"{PYTHON} -I -m surfaces.demo_agent -- {TASK}",
            program="surfaces.demo_agent",
            proven_version="",
            package="codedesk itself",
            instructions_in="none: a script, not a model, it reads no prompt",
            messages_in="live, in `CODEDESK_MESSAGES` (the demo reads none)",
            built_in=True,
            notes="a deterministic script, not an AI: it commits a note made from the task",
        ),
    )
}

PRESETS: dict[str, str] = {name: preset.command for name, preset in AGENT_PRESETS.items()}
"""Each preset's command template, by name."""

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


def with_python(part: str, python: str) -> str:
    """`part` of an agent command with `{python}` as the worker's interpreter `python`."""
    return part.replace(PYTHON, python)


def preset_named_by(command: str) -> Preset | None:
    """The preset whose command `command` is, as given (a custom command is none)."""
    return next((p for p in AGENT_PRESETS.values() if p.command == command), None)


def preset_for(argv: Sequence[str]) -> Preset | None:
    """The preset whose program `argv` runs (by its file name), if any."""
    if not argv:
        return None
    program = argv[0].rsplit("/", 1)[-1]
    return next((p for p in AGENT_PRESETS.values() if p.program == program), None)


def guards_off_flags(argv: Sequence[str]) -> list[str]:
    """The options in `argv` that turn an agent CLI's own guards off."""
    return [part for part in argv if part.split("=", 1)[0] in GUARDS_OFF_FLAGS]


def guards_off_refusal(argv: Sequence[str], confined: bool, allowed: bool) -> str | None:
    """Why an agent command that turns its CLI's own guards off may not run unconfined; None
    when it may (codedesk's sandbox is around it, or the owner opted in)."""
    flags = guards_off_flags(argv)
    if not flags or confined or allowed:
        return None
    return (
        f"The agent command turns its CLI's own approvals and sandbox off ({', '.join(flags)}), "
        "and codedesk's sandbox is not around it: it would run with all of the worker's "
        "rights. Run the worker with the sandbox (CODEDESK_SANDBOX=bwrap), or set "
        "CODEDESK_UNCONFINED_GUARDS_OFF=true to let it run unconfined."
    )


def all_own_files() -> list[str]:
    """Exclude patterns of every preset's own files, for the clone's `info/exclude`."""
    return sorted({pattern for preset in AGENT_PRESETS.values() for pattern in preset.own_files})


CODEX_HELD_TOOLS_MATCHER = ".*"
"""The codex tools whose calls go through the hold hook: all of them (its shell, apply_patch and
MCP tools); the shell rule answers a harmless call at once."""


def codex_hooks_override(hold_command: str, timeout_seconds: int) -> str:
    """codex's `-c` override (TOML) whose PreToolUse hook asks the hold hook about every tool."""

    def text(value: str) -> str:
        return json.dumps(value, ensure_ascii=True)  # ASCII JSON strings are TOML basic strings

    hook = f"type={text('command')},command={text(hold_command)},timeout={timeout_seconds}"
    return f"hooks.PreToolUse=[{{matcher={text(CODEX_HELD_TOOLS_MATCHER)},hooks=[{{{hook}}}]}}]"


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
