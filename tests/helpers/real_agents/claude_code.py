"""The real Claude Code in these tests: its binary (the preset's proven release and the registry's
newest), its environment pointed at a fake model, and a `Bash` tool call; shared by
tests/real_agents/test_claude_code.py and test_claude_messages.py."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from desk.config.settings import DeskSettings
from tests.real_agents import HEARTBEAT_TIMEOUT
from tests.real_agents.fake_anthropic import FakeAnthropic, Step, serving
from tests.real_agents.install import agent_cache, release_cli

REPO = "acme/api"
CLAUDE_PACKAGE = "@anthropic-ai/claude-code"
AGENT_ENV = [
    "CLAUDE_CONFIG_DIR",
    "DISABLE_AUTOUPDATER",
    "DISABLE_TELEMETRY",
    "DISABLE_ERROR_REPORTING",
]
"""What Claude Code needs of the worker's environment here beyond the default `agent_env`."""


@pytest.fixture(scope="session", params=["pinned", "newest"])
def claude_binary(request: pytest.FixtureRequest) -> Path:
    """The preset's proven Claude Code, and the registry's newest release: every test runs on
    both (a newest release that fails names what changed)."""
    return release_cli("claude", request.param)


@pytest.fixture
def claude_env(
    claude_binary: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., FakeAnthropic]]:
    """Points the agent's environment at a fake model; call it with the model's script."""
    config = tmp_path / "claude-config"
    config.mkdir()
    # The user's own rule allows pushes: only codedesk's hold stands between the model and
    # the origin, so a hook that fell through would let the push run.
    (config / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash(git push:*)"]}})
    )
    monkeypatch.setenv("PATH", f"{claude_binary.parent}:{os.environ['PATH']}")
    for name, value in {
        "ANTHROPIC_API_KEY": "sk-ant-test-not-a-key",
        "CLAUDE_CONFIG_DIR": str(config),
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "GIT_AUTHOR_NAME": "Claude",
        "GIT_AUTHOR_EMAIL": "claude@codedesk.invalid",
        "GIT_COMMITTER_NAME": "Claude",
        "GIT_COMMITTER_EMAIL": "claude@codedesk.invalid",
    }.items():
        monkeypatch.setenv(name, value)
    fakes: list[Iterator[FakeAnthropic]] = []

    def start(steps: list[Step], refuse: str = "") -> FakeAnthropic:
        running = serving(FakeAnthropic(steps=steps, refuse=refuse))
        fakes.append(running)
        fake = running.__enter__()
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        return fake

    yield start
    for running in fakes:
        running.__exit__(None, None, None)


def talking_settings(settings: DeskSettings) -> DeskSettings:
    """A desk whose worker runs the real Claude Code for a conversation: the CLI's environment and
    cache reach its sandbox, its model is on 127.0.0.1, and a held call waits a minute."""
    return settings.model_copy(
        update={
            "hold_wait": timedelta(seconds=60),
            "hold_live_wait": timedelta(seconds=2),
            "heartbeat_timeout": HEARTBEAT_TIMEOUT,
            "agent_env": [*settings.agent_env, *AGENT_ENV],
            "sandbox_read_paths": [*settings.sandbox_read_paths, str(agent_cache())],
            "sandbox_egress": ["*", "127.0.0.1"],
        }
    )
