"""The parameter schemas of each agent preset's own tools, so their approval cards are field lists.

An agent CLI's built-in tools (Claude Code's `Bash`, `Write`, `Edit`, ...; codex's shell;
opencode's `bash`, `edit`, `write`, ...) come with no schema in their hook's input, yet a card
reads best as the tool's own form: each argument under a title, in the order the tool declares
them. `tool_schemas.json` beside this module holds them, per hook form (`claude`, `codex`,
`opencode`) and under the name the hold hook gives each call (surfaces/hook_forms.py: opencode's
`edit` is `Edit` there, its `filePath` `file_path`; a patch tool is the `shell` command
`apply_patch PATCH`). The names and their order are the real CLIs' (the versions the presets
were proven with): `python -m tests.real_agents.tool_schemas` reads them from the CLIs and
writes the file, and tests/real_agents/test_tool_schemas.py checks it against them.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

SCHEMAS_FILE = Path(__file__).with_name("tool_schemas.json")


@functools.cache
def _schemas() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMAS_FILE.read_text(encoding="utf-8"))
    return loaded


def preset_tool_schema(form: object, tool: str) -> dict[str, Any] | None:
    """The parameter schema of `tool` as the hook of a CLI of `form` names it, or None (a form
    or a tool codedesk has none for: an MCP tool, a command agent's)."""
    if not isinstance(form, str):
        return None
    preset = _schemas().get(form)
    tools = preset.get("tools") if isinstance(preset, dict) else None
    schema = tools.get(tool) if isinstance(tools, dict) else None
    return json.loads(json.dumps(schema)) if isinstance(schema, dict) else None
