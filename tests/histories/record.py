"""Record workflow histories for the replay test: run after adding a workflow path worth keeping.

Old recordings are never re-recorded: they are what in-flight workflows look like, and the
replay test proves today's code still replays them (use `workflow.patched` when it does not).
Run from the repository's top: `.venv/bin/python -m tests.histories.record`.
"""

import asyncio
import os
import tempfile
from pathlib import Path

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from desk.names import DESK_WORKFLOW_ID, SEARCH_ATTRIBUTES, repo_workflow_id
from desk.settings import load_settings
from surfaces.desk_client import DeskClient
from tests.conftest import agent, make_origin
from workers.devserver import temporal_binary
from workers.worker import build_worker


def keep(path: Path, text: str) -> None:
    """Write a new recording; an existing one stays as it was recorded."""
    if not path.exists():
        path.write_text(text)


async def main() -> None:
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_binary(),
        data_converter=pydantic_data_converter,
        search_attributes=SEARCH_ATTRIBUTES,
        ui=False,
    )
    tmp = Path(tempfile.mkdtemp())
    settings = load_settings(
        home=tmp / "home",
        temporal_address=env.client.service_client.config.target_host,
        task_queue="rec",
        heartbeat_timeout="2s",
    )
    origin = make_origin(tmp / "o" / "acme" / "api.git")
    async with build_worker(env.client, settings):
        desk = DeskClient(env.client, settings)
        await desk.add_repo("acme/api", str(origin))
        n1 = await desk.start_job(
            "acme/api", "greet", agent_command=agent("write:a.txt=1", "commit:a")
        )
        n2 = await desk.start_job("acme/api", "fail", agent_command=agent("exit:3"))
        n3 = await desk.start_job("acme/api", "sleep", agent_command=agent("sleep:30"))
        await asyncio.sleep(2)
        await desk.job(n3).cancel()
        for n in (n1, n2, n3):
            r = await desk.wait(n)
            print(n, r.outcome)
        out = Path(__file__).resolve().parent
        for n, name in (
            (n1, "coding_job_integrated"),
            (n2, "coding_job_agent_failed"),
            (n3, "coding_job_cancelled"),
        ):
            h = await desk.job(n).fetch_history()
            keep(out / f"{name}.json", h.to_json())
        h = await env.client.get_workflow_handle(repo_workflow_id("acme/api")).fetch_history()
        keep(out / "repo_entity.json", h.to_json())
        h = await env.client.get_workflow_handle(DESK_WORKFLOW_ID).fetch_history()
        keep(out / "desk.json", h.to_json())
    await env.shutdown()


if __name__ == "__main__":
    asyncio.run(main())
    os._exit(0)  # the SDK can crash at interpreter exit (TEMPORAL-NOTES.md)
