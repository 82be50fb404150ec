"""`codedesk watch` prints the agent's texts worth reading whole, once (issue 30 part 3)."""

from __future__ import annotations

from pathlib import Path

from desk.config.settings import DeskSettings
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent_script
from tests.helpers.cli_helpers import settings_env, watch_output

PLAN = ["## Plan", "- read the code", "- write the test"]


async def test_watch_prints_the_agents_structured_text_whole_once(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    go_on = gates / "go-on"
    await desk.add_repo("acme/api", str(origin))
    steps = [*[f"say:{line}" for line in PLAN], "say:", "say:a short note", "say:"]
    command = agent_script(gates, *steps, f"wait:{go_on}")
    number = await desk.start_job("acme/api", "plan aloud", agent_command=command)
    env = settings_env(settings, CODEDESK_AGENT_PROGRESS_INTERVAL="0.2s")
    output, _ = await watch_output(
        number, env, tmp_path, lambda line: "agent ┃ - write the test" in line, go_on
    )
    written = [line.strip() for line in output.splitlines() if "agent ┃" in line]
    assert written == [f"agent ┃ {line}" for line in PLAN], output
    assert output.count("agent wrote:") == 1, output
