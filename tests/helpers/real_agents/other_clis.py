"""The codex, aider and opencode CLIs in these tests: their releases (the preset's proven one and
the registry's newest), the fake model served before the worker starts, the settings that let the
sandbox reach it, and the agent's own home; shared by tests/real_agents/test_other_clis.py,
test_resumed_messages.py and test_codex_suspension.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from desk.config.settings import DeskSettings
from tests.real_agents import HEARTBEAT_TIMEOUT
from tests.real_agents.agent_env import give_agent_home
from tests.real_agents.fake_openai import FakeOpenAI, serving
from tests.real_agents.install import agent_cache

REPO = "acme/api"
RELEASES = ["pinned", "newest"]
NOTES = "echo notes > NOTES.md && git add NOTES.md && git commit -q -m 'Add notes' && echo ok"
"""A commit the scripted model asks the agent for."""
"""The preset's proven version, and the registry's newest release."""


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    """The model, served before the worker starts so the settings can name its port."""
    with serving(FakeOpenAI(steps=[])) as served:
        yield served


@pytest.fixture
def settings(settings: DeskSettings, fake: FakeOpenAI) -> DeskSettings:
    # The fake's own port, named: every other loopback port stays refused by the proxy.
    port = fake.url.split(":")[2].split("/")[0]
    return settings.model_copy(
        update={
            "sandbox_egress": ["*", f"127.0.0.1:{port}"],
            "heartbeat_timeout": HEARTBEAT_TIMEOUT,
            "agent_env": [*settings.agent_env, "AIDER_*", "OPENCODE_*"],
            "sandbox_read_paths": [*settings.sandbox_read_paths, str(agent_cache())],
        }
    )


@pytest.fixture
def agent_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Set variables of the agent's environment (the worker runs in this process)."""
    return give_agent_home(monkeypatch, tmp_path / "agent-home")


def make_codex_home(folder: Path, model_url: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The owner's codex folder (`CODEX_HOME`) at `folder`, as codex keeps it: a `config.toml`
    whose provider is the fake model at `model_url`; the key comes from the environment."""
    folder.mkdir()
    (folder / "config.toml").write_text(
        'model = "gpt-fake"\nmodel_provider = "fake"\n\n[model_providers.fake]\n'
        f'name = "fake"\nbase_url = "{model_url}"\nwire_api = "responses"\n'
        'env_key = "OPENAI_API_KEY"\n'
    )
    monkeypatch.setenv("CODEX_HOME", str(folder))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    return folder
