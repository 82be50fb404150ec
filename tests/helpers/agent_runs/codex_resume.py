"""The real codex against a fake OpenAI API in a worker's environment (its owner's config.toml
naming the fake, sandboxed in bubblewrap), and codex's shell tool call; shared by the crash tests
of codex's resumed thread and its suspension (tests/crash/agents)."""

from __future__ import annotations

from pathlib import Path

from desk.config.settings import DeskSettings
from tests.helpers.agent_runs import CRASH_HEARTBEAT_TIMEOUT
from tests.helpers.cli_helpers import settings_env
from tests.real_agents.fake_openai import FakeOpenAI
from tests.real_agents.install import agent_cache, release_cli


def worker_env(settings: DeskSettings, fake: FakeOpenAI, tmp_path: Path) -> dict[str, str]:
    codex = release_cli("codex")
    owner = tmp_path / "codex-home"
    owner.mkdir()
    (owner / "config.toml").write_text(
        'model = "gpt-fake"\nmodel_provider = "fake"\n\n[model_providers.fake]\n'
        f'name = "fake"\nbase_url = "{fake.url}"\nwire_api = "responses"\n'
        'env_key = "OPENAI_API_KEY"\n'
    )
    env = settings_env(
        settings,
        CODEDESK_SANDBOX="bwrap",
        CODEDESK_HEARTBEAT_TIMEOUT=f"{int(CRASH_HEARTBEAT_TIMEOUT.total_seconds())}s",
        CODEDESK_SANDBOX_READ_PATHS=",".join([*settings.sandbox_read_paths, str(agent_cache())]),
        CODEDESK_SANDBOX_EGRESS="*,127.0.0.1",
        CODEDESK_AGENT_ENV="PATH,OPENAI_*,GIT_*",
        CODEX_HOME=str(owner),
        OPENAI_API_KEY="sk-test-not-a-key",
        GIT_AUTHOR_NAME="Codex",
        GIT_AUTHOR_EMAIL="codex@codedesk.invalid",
        GIT_COMMITTER_NAME="Codex",
        GIT_COMMITTER_EMAIL="codex@codedesk.invalid",
    )
    env["PATH"] = f"{codex.parent}:{env['PATH']}"
    return env
