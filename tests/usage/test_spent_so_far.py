"""What a running job's agent spent so far (issue 29): `codedesk show` and its JSON read it
from the agent's latest heartbeat while it works, and the thread's progress message says it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from surfaces.render.discord.embeds import progress_embed
from tests.helpers.agents import agent
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from tests.helpers.waiting import eventually

REPO = "acme/api"
SPENT = "1,200 tokens in, 300 out, 5 cached (m); $0.0123"


async def test_show_says_what_a_working_agent_spent_so_far(
    desk: DeskClient, settings: DeskSettings, origin: Path, gates: Path, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    go_on = gates / "go-on"
    report = "usage:" + json.dumps(
        {
            "input_tokens": 1200,
            "output_tokens": 300,
            "cached_tokens": 5,
            "cost": "0.0123",
            "model": "m",
        }
    )
    number = await desk.start_job(
        REPO, "spend", agent_command=agent(report, f"wait:{go_on}", "write:a.txt=a", "commit:a")
    )
    env = settings_env(settings)

    async def show_json() -> dict[str, Any]:
        done = await run_cli(env, "show", str(number), "--json", cwd=tmp_path)
        assert done.returncode == 0, shown(done)
        document: dict[str, Any] = json.loads(done.stdout)
        return document

    document = await eventually(show_json, lambda d: d["spent_so_far"], "the usage so far")
    assert document["spent_so_far"]["input_tokens"] == 1200, document
    assert document["spent_so_far"]["cost"] == "0.0123", document
    as_text = await run_cli(env, "show", str(number), cwd=tmp_path)
    assert f"spent so far: {SPENT}\n" in as_text.stdout, shown(as_text)

    go_on.touch()
    assert (await desk.wait(number)).outcome == JobOutcome.INTEGRATED
    after = await run_cli(env, "show", str(number), cwd=tmp_path)
    assert "spent so far" not in after.stdout, shown(after)  # the report says it now
    assert "usage: 1,200 tokens in" in after.stdout, shown(after)
    assert (await show_json())["spent_so_far"] is None


def test_the_progress_message_says_what_the_agent_spent_so_far() -> None:
    embed = progress_embed("Job 3 on `acme/api`: working", ["reading"], SPENT)
    assert embed.description is not None
    assert f"So far: {SPENT}" in embed.description
    assert "reading" in embed.description
    plain = progress_embed("Job 3 on `acme/api`: working", ["reading"])
    assert plain.description is not None and "So far" not in plain.description
