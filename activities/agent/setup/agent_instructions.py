"""The job's standing instructions on disk: the owner's replacement read, the job's copy written.

The job's copy sits in its folder beside the hook settings: outside the worktree (nothing is
written into the repository) and given to the sandbox to read. The placeholders of the agent's
command and of its preset's variables (desk/agents/presets.py) are filled from it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from activities.agent.process.launch import passed_environment
from desk.agents.presets import (
    INSTRUCTIONS,
    INSTRUCTIONS_CONFIG,
    INSTRUCTIONS_FILE,
    INSTRUCTIONS_JSON,
    INSTRUCTIONS_PLACEHOLDERS,
    INSTRUCTIONS_TOML,
    TASK,
    Preset,
)
from desk.agents.standing_instructions import (
    BUILT_IN,
    INSTRUCTIONS_SETTING,
    Instructions,
    owner_instructions,
)
from desk.config.settings import DeskSettings
from desk.errors import AgentCommandError, InstructionsError
from desk.payloads.jobs import InstructionsUsed

INSTRUCTIONS_FILE_NAME = "instructions.md"
INSTRUCTIONS_CONFIG_NAME = "instructions-config.json"


def load_instructions(settings: DeskSettings) -> Instructions:
    """The instructions this host's agents get: the owner's file, checked, or codedesk's own.

    Read at worker start, at each job's admission and at each start of an agent, so a file
    made unusable after the worker started fails the next job instead of running it without.
    """
    path = settings.agent_instructions
    if path is None:
        return BUILT_IN
    path = path.expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        raise InstructionsError(
            f"The agent instructions file {str(path)!r} ({INSTRUCTIONS_SETTING}) cannot be "
            f"read ({reason}): make it a readable UTF-8 file, or unset {INSTRUCTIONS_SETTING} "
            "to use codedesk's own instructions."
        ) from None
    return owner_instructions(path.name, text, repr(str(path)))


@dataclass(frozen=True)
class GivenInstructions:
    """The agent's argv and preset variables with the instructions filled in, the files the
    sandbox must let it read, and what the report says it had (None: it had none)."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    files: tuple[Path, ...] = ()
    used: InstructionsUsed | None = None


def instructions_for(
    settings: DeskSettings, argv: list[str], preset: Preset | None, folder: Path, task: str
) -> GivenInstructions:
    """This host's instructions where the command (`preset`'s own, or None: a custom one) or
    its preset's variables ask for them, and the task where it asks for that. A variable the
    preset merges (`Preset.merged_env`) is merged over the owner's own value; another that the
    owner passes the agent already is refused rather than silently replaced."""
    instructions = load_instructions(settings)
    given = give_instructions(argv, preset.env if preset else (), instructions, folder, task)
    passed = passed_environment(settings.agent_env)
    merged = set(preset.merged_env) if preset is not None else set()
    for name in merged & set(given.env) & set(passed):
        given.env[name] = merged_config(name, passed[name], given.env[name])
    clash = [name for name in clashing_variables(given.env, passed) if name not in merged]
    if preset is not None and clash:
        raise InstructionsError(
            f"The {preset.name} preset passes the agent its standing instructions in "
            f"{', '.join(clash)}, which the worker's environment gives the agent too "
            "(through CODEDESK_AGENT_ENV): keep that configuration in another of the CLI's "
            "places, or use a custom --agent-command."
        )
    return given


def give_instructions(
    argv: list[str],
    preset_env: tuple[tuple[str, str], ...],
    instructions: Instructions,
    folder: Path,
    task: str = TASK,
) -> GivenInstructions:
    """Fill the placeholders of `argv` (the task's and the instructions') and of `preset_env`
    in one pass, so a task or a text that spells a placeholder stays as it is; the job's files
    are written in `folder` only when a placeholder asks for them."""
    templates = [*argv, *(value for _, value in preset_env)]
    if not any(mark in part for part in templates for mark in INSTRUCTIONS_PLACEHOLDERS):
        argv = [fill(part, {TASK: task}) for part in argv]
        return GivenInstructions(argv=argv, env=dict(preset_env))
    folder.mkdir(parents=True, exist_ok=True)
    text_file = folder / INSTRUCTIONS_FILE_NAME
    text_file.write_text(instructions.text, encoding="utf-8")
    config_file = folder / INSTRUCTIONS_CONFIG_NAME
    config = {"instructions": [str(text_file)]}
    config_file.write_text(json.dumps(config, indent=2) + "\n")
    values = {
        INSTRUCTIONS: instructions.text,
        INSTRUCTIONS_FILE: str(text_file),
        INSTRUCTIONS_TOML: toml_string(instructions.text),
        INSTRUCTIONS_CONFIG: str(config_file),
        INSTRUCTIONS_JSON: json.dumps(config),
    }
    return GivenInstructions(
        argv=[fill(part, {**values, TASK: task}) for part in argv],
        env={name: fill(value, values) for name, value in preset_env},
        files=(text_file, config_file),
        used=InstructionsUsed(name=instructions.name, digest=instructions.digest),
    )


def fill(template: str, values: Mapping[str, str]) -> str:
    """`template` with each placeholder of `values` replaced, in one pass."""
    marks = re.compile("|".join(re.escape(mark) for mark in values))
    return marks.sub(lambda found: values[found.group()], template)


def toml_string(text: str) -> str:
    """`text` as a TOML basic string: quotes, backslashes and control characters escaped."""
    escaped = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    out = []
    for char in text:
        if char in escaped:
            out.append(escaped[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def merged_config(name: str, owner: str, ours: str) -> str:
    """The owner's JSON config in `name` with codedesk's merged over it: a list is added to
    (the owner's entries first: opencode's `instructions`), an object updated, anything else
    set. The owner's value must be a JSON object, or nothing could be merged into it."""
    try:
        document = json.loads(owner) if owner else {}
    except ValueError as error:
        document = error
    if not isinstance(document, dict):
        raise AgentCommandError(
            f"{name} in the agent's environment is not a JSON object, so codedesk cannot add "
            "the job's standing instructions to it: write it as plain JSON (no comments), or "
            "keep that configuration in a file (OPENCODE_CONFIG), which stays as it is."
        )
    merged: dict[str, object] = dict(document)
    for key, value in json.loads(ours).items():
        mine = merged.get(key)
        if isinstance(mine, list) and isinstance(value, list):
            merged[key] = [*mine, *(item for item in value if item not in mine)]
        elif isinstance(mine, dict) and isinstance(value, dict):
            merged[key] = {**mine, **value}
        else:
            merged[key] = value
    return json.dumps(merged)


def clashing_variables(env: dict[str, str], passed: dict[str, str]) -> list[str]:
    """The preset's variables that the owner's environment passes to the agent already."""
    return sorted(name for name in env if name in passed and passed[name] != env[name])
