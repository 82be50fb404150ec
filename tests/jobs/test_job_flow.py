"""A coding job end to end: worktree, agent, integration into the clone, report."""

from __future__ import annotations

from pathlib import Path

from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.repos import git


async def test_job_is_integrated_into_the_clone(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    info = await desk.add_repo("acme/api", str(origin))
    number = await desk.start_job(
        "acme/api", "add a greeting", agent_command=agent("write:hello.txt=hi", "commit:greet")
    )
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    clone = Path(info.path)
    assert (clone / "hello.txt").read_text() == "hi"
    assert git(clone, "log", "-1", "--format=%s") == "greet"
    assert [commit.subject for commit in report.commits] == ["greet"]
    assert report.head == git(clone, "rev-parse", "HEAD")
    assert not Path(report.worktree).exists()
    assert "worker/" not in git(clone, "branch", "--list")
