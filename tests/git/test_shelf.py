"""The shelf: adding clones, listing them, and every refusal leaving the disk as it was."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError

from desk.config.settings import DeskSettings
from desk.errors import DeskError, RepoNameError
from desk.payloads.jobs import AddRepoInput, JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.repos import git, snapshot
from tests.helpers.waiting import until
from workflows.host.shelf import AddRepo

TOKEN = "s3cretTOKENvalue"


async def test_add_then_list_shows_the_clone(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    added = await desk.add_repo("acme/api", str(origin))
    expected_path = settings.shelf_dir / "acme" / "api"
    assert Path(added.path) == expected_path
    assert (expected_path / "README.md").read_text() == "# sample\n"

    [listed] = await desk.list_repos()
    assert listed.repo == "acme/api"
    assert Path(listed.path) == expected_path
    assert listed.branch == "main"
    assert listed.upstream == "origin/main"
    assert (listed.ahead, listed.behind) == (0, 0)
    assert listed.dirty == []
    assert listed.last_commit == "initial"
    assert listed.head == git(expected_path, "rev-parse", "HEAD")
    assert listed.error == ""

    (expected_path / "notes.txt").write_text("draft\n")
    [listed] = await desk.list_repos()
    assert listed.dirty == ["notes.txt"]


async def test_list_with_fetch_sees_the_origin_move(
    desk: DeskClient, origin: Path, tmp_path: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    elsewhere = tmp_path / "elsewhere"
    git(tmp_path, "clone", "--quiet", str(origin), str(elsewhere))
    (elsewhere / "CHANGES.md").write_text("moved\n")
    git(elsewhere, "add", "-A")
    git(elsewhere, "commit", "--quiet", "-m", "upstream moves")
    git(elsewhere, "push", "--quiet", "origin", "main")

    [stale] = await desk.list_repos()
    assert (stale.ahead, stale.behind) == (0, 0)
    [fresh] = await desk.list_repos(fetch=True)
    assert (fresh.ahead, fresh.behind) == (0, 1)
    assert fresh.last_commit == "initial"  # fetching does not move the clone
    assert fresh.error == ""


@pytest.mark.parametrize("name", ["acme", "a/b/c", ".hidden/x", "a/..", "../x", "a/b c"])
async def test_bad_names_are_refused_and_nothing_is_created(
    desk: DeskClient, settings: DeskSettings, origin: Path, name: str
) -> None:
    before = snapshot(settings.shelf_dir)
    with pytest.raises(RepoNameError) as refused:
        await desk.add_repo(name, str(origin))
    message = str(refused.value)
    assert repr(name) in message
    assert "owner/repo" in message
    assert snapshot(settings.shelf_dir) == before
    assert not (settings.shelf_dir / name).exists()


@pytest.mark.parametrize("name", ["acme", "a/b/c", ".hidden/x", "a/..", "../x", "a/b c"])
async def test_the_activity_refuses_bad_names_too(
    desk: DeskClient, client: Client, settings: DeskSettings, origin: Path, name: str
) -> None:
    """A surface that skips the client-side check still cannot clone outside the shelf."""
    before = snapshot(settings.shelf_dir)
    with pytest.raises(WorkflowFailureError) as failed:
        await client.execute_workflow(
            AddRepo.run,
            AddRepoInput(repo=name, source=str(origin)),
            id=f"shelf-add-raw-{uuid.uuid4()}",
            task_queue=settings.task_queue,
        )
    cause = failed.value.cause
    while cause is not None and not isinstance(cause, ApplicationError):
        cause = cause.__cause__
    assert isinstance(cause, ApplicationError)
    assert cause.type == "RepoNameError"
    assert "owner/repo" in cause.message
    assert snapshot(settings.shelf_dir) == before


async def test_a_second_add_of_the_same_name_is_refused(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    added = await desk.add_repo("acme/api", str(origin))
    clone = Path(added.path)
    head = git(clone, "rev-parse", "HEAD")
    before = snapshot(settings.shelf_dir)
    with pytest.raises(DeskError) as refused:
        await desk.add_repo("acme/api", str(origin))
    message = str(refused.value)
    assert "already on the shelf" in message
    assert str(clone) in message
    assert snapshot(settings.shelf_dir) == before
    assert git(clone, "rev-parse", "HEAD") == head


@pytest.mark.parametrize(
    ("source", "says"),
    [
        (f"https://user:{TOKEN}@example.com/acme/api.git", "password"),
        (f"https://{TOKEN}@example.com/acme/api.git", "user info"),
        ("https://example.com/acme/api.git?ref=main", "query"),
        ("https://example.com/acme/api.git#main", "fragment"),
        ("ext::sh -c x", "remote-helper"),
        ("/no/such/origin/api.git", "neither a URL nor an existing path"),
    ],
)
async def test_bad_sources_are_refused_and_nothing_is_created(
    desk: DeskClient, settings: DeskSettings, source: str, says: str
) -> None:
    before = snapshot(settings.shelf_dir)
    with pytest.raises(DeskError) as refused:
        await desk.add_repo("acme/api", source)
    message = str(refused.value)
    assert says in message, message
    assert message.endswith("."), message  # a full sentence
    assert TOKEN not in message
    assert snapshot(settings.shelf_dir) == before
    assert not (settings.shelf_dir / "acme" / "api").exists()


async def test_a_refused_add_can_be_retried_with_a_good_source(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    with pytest.raises(DeskError):
        await desk.add_repo("acme/api", "https://example.com/acme/api.git#main")
    added = await desk.add_repo("acme/api", str(origin))
    assert (Path(added.path) / "README.md").exists()


async def test_the_shelf_does_not_list_job_worktrees(
    desk: DeskClient, settings: DeskSettings, origin: Path, tmp_path: Path, gates: Path
) -> None:
    await desk.add_repo("acme/api", str(origin))
    go = gates / "go"
    number = await desk.start_job(
        "acme/api",
        "slow edit",
        agent_command=agent(f"wait:{go}", "write:slow.txt=slow", "commit:slow"),
    )
    worktree = settings.shelf_dir / ".worktrees" / "acme" / "api" / str(number)
    await until((worktree / ".git").exists, "the job's worktree")

    listed = await desk.list_repos()
    assert [clone.repo for clone in listed] == ["acme/api"]
    assert all(".worktrees" not in clone.path for clone in listed)
    go.touch()

    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [clone.repo for clone in await desk.list_repos()] == ["acme/api"]
