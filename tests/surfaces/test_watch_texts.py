"""`codedesk watch` prints the agent's texts worth reading whole, once (issue 30 part 3)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from desk.config.settings import DeskSettings
from surfaces.clients.desk import DeskClient
from tests.helpers.agents import agent_script
from tests.helpers.cli_helpers import CODEDESK, settings_env
from tests.helpers.waiting import awaited

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
    process = await asyncio.create_subprocess_exec(
        CODEDESK,
        "watch",
        str(number),
        env=env,
        cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    seen: list[str] = []
    try:
        while not any("agent ┃ - write the test" in line for line in seen):
            line = await awaited(process.stdout.readline(), "process.stdout.readline()")
            assert line, f"watch ended early: {seen}"
            seen.append(line.decode())
        go_on.touch()
        rest, errors = await awaited(process.communicate(), "process.communicate()")
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    output = "".join(seen) + rest.decode()
    assert process.returncode == 0, output + errors.decode()
    written = [line.strip() for line in output.splitlines() if "agent ┃" in line]
    assert written == [f"agent ┃ {line}" for line in PLAN], output
    assert output.count("agent wrote:") == 1, output
