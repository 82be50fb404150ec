"""Each agent CLI's home: where it keeps its configuration, what of it a job's home is seeded
with, and what is a credential and never copied.

A job's agent gets a home of its own (writable: every CLI here writes sessions, logs and caches
into it). It is seeded from the owner's configuration of the CLI it runs, read where the worker's
environment says that CLI keeps it (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`, `XDG_CONFIG_HOME`) or at
the CLI's default. Credentials stay behind: the files that hold a login (`auth.json`,
`.credentials.json`, `~/.claude.json`, aider's `.env`) are never seeded, and in the files that
are, a setting whose name says it holds a secret (`apiKey`, `experimental_bearer_token`,
`apiKeyHelper`, `openai-api-key`, ...) is left out and the rest is scrubbed. The CLI
authenticates with what the owner lists in `agent_env` instead (`OPENAI_API_KEY`,
`ANTHROPIC_API_KEY`, ...). Pure data and text: the files are copied by
activities/agent/process/cli_home.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from desk.scrub import scrub

CREDENTIAL_KEY = re.compile(
    r"api[-_]?key|token(?!s)|secret|password|passwd|credential|authorization|bearer|cookie"
    r"|private[-_]?key|helper|aws[-_]?auth|oauth",
    re.IGNORECASE,
)
"""A setting whose name matches holds (or makes, like `apiKeyHelper`) a credential."""
_KEY_LINE = re.compile(r"""^(\s*)(?:-\s*)?["']?([\w.\-]+)["']?\s*[:=]""")
"""A `key = value` (TOML), `key: value` (YAML) or `"key": value` (JSON) line."""


@dataclass(frozen=True)
class CliHome:
    """Where one CLI keeps its configuration and which of it seeds a job's home.

    `folder` is the configuration's place under a home (`.codex`); `variable`, when set, is the
    environment variable that moves it (`CODEX_HOME`), given to the agent pointing into its own
    home; `seeds` are paths under the folder copied in (a folder's files too); `never` names
    what is a credential and is never copied, wherever it is found under a seeded path.
    """

    program: str
    folder: str
    variable: str = ""
    seeds: tuple[str, ...] = ()
    never: tuple[str, ...] = ()


CLI_HOMES: dict[str, CliHome] = {
    home.program: home
    for home in (
        CliHome(
            program="claude",
            folder=".claude",
            variable="CLAUDE_CONFIG_DIR",
            seeds=("settings.json", "CLAUDE.md", "agents", "commands"),
            never=(".credentials.json", ".claude.json"),
        ),
        CliHome(
            program="codex",
            folder=".codex",
            variable="CODEX_HOME",
            seeds=("config.toml", "AGENTS.md", "prompts"),
            never=("auth.json",),
        ),
        CliHome(
            program="opencode",
            folder=".config/opencode",
            seeds=("opencode.json", "opencode.jsonc", "config.json", "AGENTS.md", "agent"),
            never=("auth.json",),
        ),
        CliHome(
            program="aider",
            folder=".",
            seeds=(".aider.conf.yml", ".aider.model.settings.yml", ".aider.model.metadata.json"),
            never=(".env",),
        ),
    )
}
"""The CLIs of the presets, by program name."""

XDG_HOMES = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CACHE_HOME": ".cache",
}
"""The XDG base folders, each given to the agent inside its own home."""


def owner_folder(cli: CliHome, environ: dict[str, str], home: str) -> str:
    """Where the owner keeps `cli`'s configuration: its variable's folder, else its folder
    under an XDG base variable the worker has, else under `home`."""
    if cli.variable and environ.get(cli.variable):
        return environ[cli.variable]
    for name, base in XDG_HOMES.items():
        if cli.folder.startswith(f"{base}/") and environ.get(name):
            return f"{environ[name]}/{cli.folder.removeprefix(base + '/')}"
    return f"{home}/{cli.folder}"


def home_variables(home: str) -> dict[str, str]:
    """The variables that keep every CLI's files in the job's home `home`, whatever the owner's
    environment says (an owner's `CODEX_HOME` would send the CLI to a folder it cannot write)."""
    found = {name: f"{home}/{folder}" for name, folder in XDG_HOMES.items()}
    for cli in CLI_HOMES.values():
        if cli.variable:
            found[cli.variable] = f"{home}/{cli.folder}"
    return found


def without_credentials(name: str, text: str) -> str:
    """The text of configuration file `name` without its credentials: settings whose name says
    they hold one are dropped (with what is nested in them), and the rest is scrubbed."""
    if name.endswith(".json"):
        try:
            document = json.loads(text)
        except ValueError:
            pass
        else:
            return scrub(json.dumps(_drop_credentials(document), indent=2) + "\n")
    return scrub(_drop_credential_lines(text))


def _drop_credentials(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _drop_credentials(item)
            for key, item in value.items()
            if not CREDENTIAL_KEY.search(str(key))
        }
    if isinstance(value, list):
        return [_drop_credentials(item) for item in value]
    return value


def _drop_credential_lines(text: str) -> str:
    """Line by line (TOML, YAML, JSON with comments): a credential's line goes, and so do the
    lines indented under it (a YAML list, a multi-line value)."""
    kept: list[str] = []
    dropping_under: int | None = None
    for line in text.splitlines(keepends=True):
        indent = len(line) - len(line.lstrip())
        if dropping_under is not None:
            if line.strip() and indent > dropping_under:
                continue
            dropping_under = None
        match = _KEY_LINE.match(line)
        if match and CREDENTIAL_KEY.search(match.group(2)):
            dropping_under = indent
            continue
        kept.append(line)
    return "".join(kept)
