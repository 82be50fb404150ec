from __future__ import annotations
import asyncio
from datetime import timedelta
from pathlib import Path
from surfaces.desk_client import DeskClient
from desk.settings import DeskSettings
from tests.conftest import agent

async def test_long_line(desk: DeskClient, settings: DeskSettings, origin: Path) -> None:
    await desk.add_repo("acme/api", str(origin))
    n = await desk.start_job("acme/api", "x", agent_command=agent("say:" + "x" * 70000, "write:a.txt=1", "commit:a"), budget=timedelta(seconds=8))
    r = await asyncio.wait_for(desk.wait(n), 30)
    print(r.outcome, r.reason, r.exit_code, len(r.output), r.output_cut)
    assert r.outcome == "integrated"

async def test_cut_token(desk: DeskClient, settings: DeskSettings, origin: Path) -> None:
    await desk.add_repo("acme/api", str(origin))
    capped = DeskClient(desk.client, settings.model_copy(update={"report_output_chars": 200}))
    tok = "ghp_abcdefghijklmnopqrstuvwxyz0123"
    n = await capped.start_job("acme/api", "x", agent_command=agent(f"say:https://user:{tok}@github.com/x", "say:" + "p" * 140))
    r = await capped.wait(n)
    print(repr(r.output[:60]))
    assert tok[14:] not in r.output
