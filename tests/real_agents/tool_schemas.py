"""What each preset's real CLI says its own tools take, read from the CLI itself.

Each CLI runs once against its scripted fake model (offline, in a throwaway folder) and the
first request it makes of the model lists its tools with their parameter schemas: Claude Code's
`input_schema`, opencode's `parameters` (for a model of the GPT family it offers `apply_patch`
instead of `edit` and `write`, so it runs twice). codex's shell tool reaches its hook as `Bash`
with only a `command` (the hook input is read from a hook that records it): its card shows that.

`python -m tests.real_agents.tool_schemas` writes what they say, in the names the hold hook
gives the calls (surfaces/hook_forms.py), to activities/holds/tool_schemas.json, with a title
for each argument; tests/real_agents/test_tool_schemas.py checks the file against the CLIs.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from activities.holds.tool_schemas import SCHEMAS_FILE
from desk.agents.presets import AGENT_PRESETS, codex_hooks_override
from surfaces.hook_forms import CODEX, OPENCODE, OPENCODE_FILE_TOOLS, PATCH_TOOLS
from tests.real_agents.agent_env import opencode_config
from tests.real_agents.fake_anthropic import FakeAnthropic, Say, ToolCall
from tests.real_agents.fake_anthropic import serving as serving_anthropic
from tests.real_agents.fake_openai import FakeOpenAI
from tests.real_agents.fake_openai import serving as serving_openai
from tests.real_agents.install import release_cli

CLAUDE_PACKAGE = "@anthropic-ai/claude-code"
RUN_TIMEOUT = 300
KEPT = ("type", "enum", "const")
"""What the file keeps of each argument's schema: what a card reads (an enum value is never
cut); descriptions are the model's, not the card's."""
TITLES = {"cmd": "Command", "workdir": "Working directory"}
"""Titles that do not follow from the argument's name."""
ACRONYMS = {"id": "ID", "url": "URL"}
PATCH_COMMAND = {
    "type": "object",
    "properties": {"command": {"type": "array", "title": "Command"}},
}
"""A patch tool's call as the hold hook reads it: the command `apply_patch PATCH`."""


def claude_binary() -> Path:
    return release_cli("claude")


def codex_binary() -> Path:
    return release_cli("codex")


def opencode_binary() -> Path:
    return release_cli("opencode")


def _env(home: Path, **more: str) -> dict[str, str]:
    """The CLI's environment: a home of its own, started in it (opencode reads `PWD`)."""
    return {
        **os.environ,
        "HOME": str(home),
        "PWD": str(home / "work"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_STATE_HOME": str(home / "state"),
        **more,
    }


def _folder(home: Path) -> Path:
    work = home / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


def claude_tools() -> dict[str, dict[str, Any]]:
    """Claude Code's tools and the JSON Schema of each one's input, as it offers them."""
    binary = claude_binary()
    with (
        tempfile.TemporaryDirectory() as temp,
        serving_anthropic(FakeAnthropic(steps=[Say("ok")])) as fake,
    ):
        home = Path(temp)
        env = _env(
            home,
            ANTHROPIC_API_KEY="sk-ant-test-not-a-key",
            ANTHROPIC_BASE_URL=fake.url,
            CLAUDE_CONFIG_DIR=str(home / "claude"),
            DISABLE_AUTOUPDATER="1",
            DISABLE_TELEMETRY="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
        argv = [str(binary), "-p", "--output-format", "json", "--", "say ok"]
        _run(argv, env, _folder(home))
        first = fake.conversation()[0]
    return {tool["name"]: tool["input_schema"] for tool in first["tools"] if "input_schema" in tool}


def opencode_tools(model: str) -> dict[str, dict[str, Any]]:
    """opencode's tools for a model named `model` (a `gpt` model gets `apply_patch`)."""
    binary = opencode_binary()
    with (
        tempfile.TemporaryDirectory() as temp,
        serving_openai(FakeOpenAI(steps=[Say("ok")], task="say ok")) as fake,
    ):
        home = Path(temp)
        config = opencode_config(fake.url)
        config["provider"] = {  # the one fake model, named `model`
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": fake.url, "apiKey": "sk-test-not-a-key"},
                "models": {model: {"name": model, "tool_call": True}},
            }
        }
        config["model"] = config["small_model"] = f"fake/{model}"
        env = _env(
            home,
            XDG_CACHE_HOME=str(Path.home() / ".cache"),  # opencode's provider packages
            OPENCODE_CONFIG_CONTENT=json.dumps(config),
        )
        _run([str(binary), "run", "--", "say ok"], env, _folder(home))
        first = fake.conversation()[0]
    return {
        tool["function"]["name"]: tool["function"]["parameters"]
        for tool in first["tools"]
        if tool.get("type") == "function"
    }


def codex_hook_input(call: ToolCall) -> dict[str, Any]:
    """What codex's PreToolUse hook gets for the model's `call` (codex runs it; a recording
    hook lets it run)."""
    binary = codex_binary()
    with tempfile.TemporaryDirectory() as temp, serving_openai(FakeOpenAI(steps=[call])) as fake:
        home = Path(temp)
        recorded = home / "hook-input.jsonl"
        hook = home / "record-hook.sh"
        hook.write_text(f"#!/bin/sh\ncat >> '{recorded}'\necho >> '{recorded}'\nexit 0\n")
        hook.chmod(0o755)
        (home / "config.toml").write_text(
            'model = "gpt-fake"\nmodel_provider = "fake"\n\n[model_providers.fake]\n'
            f'name = "fake"\nbase_url = "{fake.url}"\nwire_api = "responses"\n'
            'env_key = "OPENAI_API_KEY"\n'
        )
        env = _env(home, CODEX_HOME=str(home), OPENAI_API_KEY="sk-test-not-a-key")
        argv = [
            str(binary),
            "exec",
            "--json",
            "--dangerously-bypass-approvals-and-sandbox",
            "--dangerously-bypass-hook-trust",
            "--enable",
            "hooks",
            "-c",
            codex_hooks_override(str(hook), 60),
            "--",
            "say ok",
        ]
        _run(argv, env, _folder(home))
        lines = [line for line in recorded.read_text().splitlines() if line.strip()]
    document: dict[str, Any] = json.loads(lines[0])
    return document


def _run(argv: list[str], env: dict[str, str], cwd: Path) -> None:
    done = subprocess.run(
        argv,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({done.returncode}):\n{done.stderr[-2000:]}")


def title(name: str) -> str:
    """`file_path`, `filePath` -> "File path"; `task_id` -> "Task ID"; `cmd` -> "Command"."""
    if name in TITLES:
        return TITLES[name]
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").split()
    text = " ".join(ACRONYMS.get(word.lower(), word.lower()) for word in words)
    return text[:1].upper() + text[1:]


def card_schema(
    schema: Mapping[str, Any], rename: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """What a card needs of a tool's schema: each argument in order, its type, enum and a title;
    `rename` gives an argument the name the hold hook gives it (opencode's `filePath`)."""
    properties: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        kept = {key: prop[key] for key in KEPT if isinstance(prop, Mapping) and key in prop}
        shown = (rename or {}).get(name, name)
        properties[shown] = {**kept, "title": title(name)}
    return {"type": "object", "properties": properties}


def shipped_schemas() -> dict[str, Any]:
    """Every preset's tools as the hold hook names them, with their card schemas."""
    claude = {name: card_schema(schema) for name, schema in claude_tools().items()}
    opencode: dict[str, Any] = {}
    for model in ("fake-model", "gpt-fake"):
        for name, schema in opencode_tools(model).items():
            if name in PATCH_TOOLS[OPENCODE] or name == "invalid":
                continue
            held = OPENCODE_FILE_TOOLS.get(name, name)
            rename = {"filePath": "file_path"} if name in OPENCODE_FILE_TOOLS else None
            opencode[held] = card_schema(schema, rename)
    opencode["shell"] = PATCH_COMMAND
    bash = codex_hook_input(ToolCall("exec_command", {"cmd": "echo ok", "workdir": "."}))
    assert bash["tool_name"] == "Bash", bash
    words = {"type": "string"}
    codex = {
        "Bash": {
            "type": "object",
            "properties": {key: {**words, "title": title(key)} for key in bash["tool_input"]},
        },
        "shell": PATCH_COMMAND,
    }
    return {
        "claude": {
            "cli": f"{CLAUDE_PACKAGE} {AGENT_PRESETS['claude'].proven_version}",
            "tools": claude,
        },
        CODEX: {"cli": f"@openai/codex {AGENT_PRESETS['codex'].proven_version}", "tools": codex},
        OPENCODE: {
            "cli": f"opencode-ai {AGENT_PRESETS['opencode'].proven_version}",
            "tools": opencode,
        },
    }


def write_schemas() -> Path:
    text = json.dumps(shipped_schemas(), indent=1, ensure_ascii=False) + "\n"
    SCHEMAS_FILE.write_text(text)
    return SCHEMAS_FILE


if __name__ == "__main__":
    print(write_schemas())
