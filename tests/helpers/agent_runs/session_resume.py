"""The real Claude Code against a fake Anthropic API in a worker's environment, and what tells a
resumed session from a fresh one: the session id an attempt heartbeated, the requests that sent
the task afresh."""

from __future__ import annotations

from pathlib import Path

from temporalio.client import Client

from desk.config.settings import DeskSettings
from desk.names import job_workflow_id
from desk.payloads.agent_progress import RUN_AGENT, AgentHeartbeat
from tests.helpers.agent_runs import CRASH_HEARTBEAT_TIMEOUT
from tests.helpers.cli_helpers import settings_env
from tests.real_agents.fake_anthropic import FakeAnthropic
from tests.real_agents.install import agent_cache, release_cli


def worker_env(settings: DeskSettings, fake: FakeAnthropic, tmp_path: Path) -> dict[str, str]:
    claude = release_cli("claude")
    config = tmp_path / "claude-config"
    config.mkdir()
    env = settings_env(
        settings,
        CODEDESK_SANDBOX="bwrap",
        CODEDESK_HEARTBEAT_TIMEOUT=f"{int(CRASH_HEARTBEAT_TIMEOUT.total_seconds())}s",
        CODEDESK_SANDBOX_READ_PATHS=",".join([*settings.sandbox_read_paths, str(agent_cache())]),
        CODEDESK_SANDBOX_EGRESS="*,127.0.0.1",
        CODEDESK_AGENT_ENV="PATH,ANTHROPIC_*,CLAUDE_CODE_*,DISABLE_*,GIT_*",
        ANTHROPIC_BASE_URL=fake.url,
        ANTHROPIC_API_KEY="sk-ant-test-not-a-key",
        CLAUDE_CONFIG_DIR=str(config),
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        GIT_AUTHOR_NAME="Claude",
        GIT_AUTHOR_EMAIL="claude@codedesk.invalid",
        GIT_COMMITTER_NAME="Claude",
        GIT_COMMITTER_EMAIL="claude@codedesk.invalid",
    )
    env["PATH"] = f"{claude.parent}:{env['PATH']}"
    return env


async def heartbeat_session(client: Client, number: int) -> str:
    """The session id the job's pending agent attempt heartbeated ("" while none)."""
    described = await client.get_workflow_handle(job_workflow_id(number)).describe()
    for pending in described.raw_description.pending_activities:
        payloads = list(pending.heartbeat_details.payloads)
        if pending.activity_type.name == RUN_AGENT and payloads:
            [beat] = await client.data_converter.decode(payloads, [AgentHeartbeat])
            assert isinstance(beat, AgentHeartbeat)
            return beat.session_id
    return ""


def fresh_tasks(fake: FakeAnthropic) -> list[dict[str, object]]:
    """The conversation's requests that send the task as a new conversation."""
    return [
        body
        for body in fake.conversation()
        if not any(message.get("role") == "assistant" for message in body.get("messages", []))
    ]
