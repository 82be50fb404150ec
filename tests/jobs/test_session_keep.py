"""A finished job's agent session is kept for the host's CODEDESK_SESSION_KEEP, so that a
continuation can resume it, then removed by the desk's durable timer (`SessionKeep`): the report
and `show` say until when, then that it was removed; the timer outlives the worker."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from temporalio.client import Client

from activities.agent.process.launch import PRIVATE_HOME, SANDBOX_HOME
from activities.shelf_paths import job_dir
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from surfaces.render.layout.report_layout import job_report
from surfaces.render.terminal.block_lines import plain
from tests.helpers.agents import agent
from tests.helpers.desks import configured
from tests.helpers.waiting import awaited, eventually
from workers.worker import build_worker

REPO = "acme/api"


def homes(settings: DeskSettings, number: int) -> list[Path]:
    """The agent's homes in job `number`'s folder, where its CLI keeps its sessions."""
    folder = job_dir(settings, number)
    return [folder / name for name in (SANDBOX_HOME, PRIVATE_HOME) if (folder / name).is_dir()]


async def shown(desk: DeskClient, number: int) -> str:
    _, current = await desk.status(number)
    assert current.report is not None
    return "\n".join(plain(job_report(current.report)))


async def test_an_integrated_jobs_session_is_kept_and_the_report_says_until_when(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    number = await desk.start_job(REPO, "greet", agent_command=agent("write:a.txt=1", "commit:a"))
    report = await awaited(desk.wait(number), "the job's report")
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert homes(settings, number), "the agent's home went with the worktree"
    assert report.finished_at is not None and report.session_kept_until is not None
    assert report.session_kept_until - report.finished_at <= timedelta(days=7)
    assert report.session_kept_until - report.finished_at > timedelta(days=6, hours=23)
    assert "session kept until" in await shown(desk, number)


async def test_the_session_is_removed_after_its_time_even_across_a_worker_restart(
    client: Client, settings: DeskSettings, origin: Path
) -> None:
    short = settings.model_copy(update={"session_keep": timedelta(seconds=3)})
    async with build_worker(client, short):
        await configured(client, short)
        desk = DeskClient(client, short)
        await desk.add_repo(REPO, str(origin))
        number = await desk.start_job(REPO, "greet", agent_command=agent("say:hello"))
        report = await awaited(desk.wait(number), "the job's report")
        assert report.outcome == JobOutcome.NOTHING, report
        assert homes(short, number)
    # The timer outlives the worker that started it: the next worker removes the session.
    async with build_worker(client, short):
        gone = await eventually(
            lambda: shown(desk, number), lambda text: "session removed" in text, "the removal"
        )
        assert "session kept until" not in gone
        assert homes(short, number) == []
