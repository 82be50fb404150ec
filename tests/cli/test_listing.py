"""`codedesk jobs` and `codedesk approvals` page: newest first, and a line for what is left off."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from desk.config.settings import DeskSettings
from desk.holds.approvals import ApprovalRequest, approval_id
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.cli_helpers import run_cli, settings_env, shown
from tests.helpers.repos import git
from tests.helpers.waiting import eventually
from workflows.shipping.approval import Approval

REPO = "acme/api"


async def visible(desk: DeskClient, query: str, count: int) -> None:
    """Wait until visibility lists `count` workflows for `query` (it lags the server a little)."""
    await eventually(
        lambda: desk.client.count_workflows(query),
        lambda counted: counted.count >= count,
        f"visibility to list {count} workflows for {query!r}",
    )


async def test_jobs_page_shows_the_newest_and_says_how_many_more(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin))
    # Each job ends before the next starts: the page holds the most recently finished jobs
    # (after any running ones), and only then are those the highest numbers.
    numbers = []
    for k in range(4):
        number = await desk.start_job(REPO, f"task {k}")
        assert (await desk.wait(number)).outcome == JobOutcome.NOTHING
        numbers.append(number)
    await visible(desk, "WorkflowType = 'CodingJob' AND ExecutionStatus = 'Completed'", 4)
    env = settings_env(settings)

    listed = await run_cli(env, "jobs", "--limit", "2", "--json", cwd=tmp_path)
    assert listed.returncode == 0, shown(listed)
    assert [row["number"] for row in json.loads(listed.stdout)] == numbers[:1:-1]
    assert "… and 2 more jobs (2 of 4 shown)" in listed.stderr, shown(listed)

    table = await run_cli(env, "jobs", "--limit", "2", cwd=tmp_path)
    assert table.returncode == 0, shown(table)
    lines = [line.split()[0] for line in table.stdout.splitlines()[1:]]
    assert lines == [str(numbers[3]), str(numbers[2])], shown(table)
    assert "`codedesk jobs --limit 4` shows them all" in table.stderr, shown(table)

    everything = await run_cli(env, "jobs", cwd=tmp_path)
    assert everything.returncode == 0, shown(everything)
    assert len(everything.stdout.splitlines()) == 1 + 4, shown(everything)
    assert "more" not in everything.stderr, shown(everything)


async def test_approvals_page_shows_the_newest_and_says_how_many_more(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    opened = []
    for k in range(3):
        ask = ApprovalRequest(
            tool="Bash",
            input={"command": f"git push origin main # {k}"},
            action="Run: git push",
            scope=f"test-{uuid.uuid4().hex[:8]}",
            owners=[settings.owner],
            origin="cli",
            classes=["push"],
        )
        ident = approval_id(ask.scope, ask.tool, ask.input)
        await desk.client.start_workflow(
            Approval.run, ask, id=ident, task_queue=settings.task_queue
        )
        opened.append(ident)
        # Each approval records when it opened: let the next one open later.
        await desk.client.get_workflow_handle_for(Approval.run, ident).query(Approval.current)
    await visible(desk, "WorkflowType = 'Approval' AND ExecutionStatus = 'Running'", 3)
    env = settings_env(settings)

    listed = await run_cli(env, "approvals", "--limit", "2", "--json", cwd=tmp_path)
    assert listed.returncode == 0, shown(listed)
    assert [entry["approval_id"] for entry in json.loads(listed.stdout)] == opened[:0:-1]
    assert "… and 1 more open approval (2 of 3 shown)" in listed.stderr, shown(listed)

    everything = await run_cli(env, "approvals", "--json", cwd=tmp_path)
    assert everything.returncode == 0, shown(everything)
    assert [entry["approval_id"] for entry in json.loads(everything.stdout)] == opened[::-1]
    assert "more" not in everything.stderr, shown(everything)
    for ident in opened:
        await desk.client.get_workflow_handle_for(Approval.run, ident).terminate("test over")


async def test_tables_piped_are_never_cut_to_the_terminal_width(
    desk: DeskClient, settings: DeskSettings, clone: Path, tmp_path: Path
) -> None:
    """`repo list` and `hosts` into a pipe: every cell whole on its row (the path, the commit
    and its subject), and the clone's lines unfolded, however wide they are."""
    subject = "a subject long enough that no row holding it fits in eighty columns " * 2
    (clone / "wide.txt").write_text("wide\n")
    git(clone, "add", "wide.txt")
    git(clone, "commit", "--quiet", "-m", subject.strip())
    head = git(clone, "rev-parse", "HEAD")
    env = settings_env(settings)

    listed = await run_cli(env, "repo", "list", cwd=tmp_path)
    assert listed.returncode == 0, shown(listed)
    [row] = [line for line in listed.stdout.splitlines() if line.startswith(REPO + " ")]
    assert row.endswith(str(clone)), shown(listed)
    assert f"{head[:10]} {subject.strip()}" in row, shown(listed)
    assert f"{REPO}: last commits: {head[:10]} {subject.strip()}" in listed.stdout, shown(listed)

    hosts = await run_cli(env, "hosts", cwd=tmp_path)
    assert hosts.returncode == 0, shown(hosts)
    [host_row] = [line for line in hosts.stdout.splitlines() if line.startswith(settings.host)]
    assert host_row.endswith(str(settings.shelf_dir)), shown(hosts)
    assert REPO in host_row, shown(hosts)
