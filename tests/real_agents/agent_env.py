"""The environment a real agent CLI gets in these tests: a home of its own and a git identity,
set in this process (the worker runs here and passes them on), and its binary on PATH."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def give_agent_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> dict[str, str]:
    """Point HOME and the XDG folders at `home` (made here) and give commits an author."""
    home.mkdir(parents=True, exist_ok=True)
    values = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_STATE_HOME": str(home / "state"),
        "GIT_AUTHOR_NAME": "Agent",
        "GIT_AUTHOR_EMAIL": "agent@codedesk.invalid",
        "GIT_COMMITTER_NAME": "Agent",
        "GIT_COMMITTER_EMAIL": "agent@codedesk.invalid",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


def on_path(monkeypatch: pytest.MonkeyPatch, program: Path) -> None:
    monkeypatch.setenv("PATH", f"{program.parent}{os.pathsep}{os.environ['PATH']}")


def opencode_config(base_url: str, **more: object) -> dict[str, object]:
    """The owner's opencode configuration of these tests: one OpenAI-compatible provider, the
    fake model at `base_url`, no update checks, no sharing; `more` adds top-level keys."""
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Fake",
        "options": {"baseURL": base_url, "apiKey": "sk-test-not-a-key"},
        "models": {"gpt-fake": {"name": "gpt-fake", "tool_call": True}},
    }
    return {
        "provider": {"fake": provider},
        "model": "fake/gpt-fake",
        "small_model": "fake/gpt-fake",
        "autoupdate": False,
        "share": "disabled",
        **more,
    }
