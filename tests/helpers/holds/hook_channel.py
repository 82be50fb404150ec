"""A job whose scripted agent waits while the test runs the hook with its environment, as the
agent's CLI would; what the hook decided."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from activities.agent.process.hook_settings import hook_argv
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agent_pids import agent_tag, codedesk_environment, running_agent
from tests.helpers.agents import agent

REPO = "acme/api"


HOOK = hook_argv(sys.executable)


PUSH_TEXT = "git push origin main"


PUSH: dict[str, Any] = {"tool": "Bash", "input": {"command": PUSH_TEXT}}


class Agent:
    """A job whose scripted agent waits for the test, which runs hooks with its environment."""

    def __init__(self, desk: DeskClient, gates: Path) -> None:
        self.desk, self.tag, self.go_on = desk, agent_tag(), gates / "go-on"
        self.number = 0
        self.env: dict[str, str] = {}

    async def start(self, repo: str = REPO) -> None:
        steps = (self.tag, f"wait-file:{self.go_on}")
        self.number = await self.desk.start_job(repo, "hooks", agent_command=agent(*steps))
        # Its environment read from outside, as the kernel has it: the agent may be sandboxed.
        pid = await running_agent(self.desk.settings.home, self.number, self.tag)
        self.env = codedesk_environment(pid)

    async def hook(
        self, call: dict[str, Any], form: str = "claude"
    ) -> subprocess.CompletedProcess[bytes]:
        return await asyncio.to_thread(
            subprocess.run,
            [*HOOK[:-1], form],
            input=json.dumps(call).encode(),
            env=self.env,
            capture_output=True,
            timeout=120,
        )

    @property
    def socket(self) -> Path:
        return Path(self.env["CODEDESK_HOLD_SOCKET"])


def decision(done: subprocess.CompletedProcess[bytes]) -> str:
    if not done.stdout:
        return ""
    return str(json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"])
