"""Host-side git steps against what other refs and other git processes leave in the clone."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.service import RPCError

from activities.git.branches import cut_worktree
from activities.git.git_commands import CheckoutStatus, checkout_status, run_git
from activities.git_locks import git_step
from activities.shelf_paths import clone_path, existing_clone
from desk.config.settings import load_settings
from desk.errors import GitBusyError, GitDirEscapeError, GitError
from desk.names import repo_workflow_id
from desk.payloads.jobs import JobOutcome
from surfaces.clients.desk_client import DeskClient
from tests.helpers.agents import agent
from tests.helpers.repos import git
from tests.helpers.waiting import until

REPO = "acme/api"


@pytest.fixture
async def clone(desk: DeskClient, origin: Path) -> Path:
    info = await desk.add_repo(REPO, str(origin))
    return Path(info.path)


def branches(clone: Path) -> list[str]:
    return git(clone, "for-each-ref", "--format=%(refname:short)", "refs/heads/").split()


async def test_a_branch_named_worker_does_not_refuse_later_jobs(
    desk: DeskClient, clone: Path
) -> None:
    git(clone, "branch", "worker")
    first = await desk.start_job(REPO, "one", agent_command=agent("write:a.txt=a", "commit:a"))
    report = await desk.wait(first)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.branch == f"worker-{first}", report
    assert (clone / "a.txt").read_text() == "a"
    second = await desk.start_job(REPO, "two", agent_command=agent("write:b.txt=b", "commit:b"))
    report = await desk.wait(second)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.branch == f"worker-{second}", report
    assert branches(clone) == ["main", "worker"]


@pytest.mark.unconfined(
    "its agent makes a branch in the clone all jobs share, which only an unconfined agent can: "
    "a sandboxed one's extra branch never reaches the clone"
)
async def test_a_branch_under_the_next_jobs_name_does_not_refuse_it(
    desk: DeskClient, clone: Path
) -> None:
    # The agent of job 1 makes a branch where job 2's would go, in the clone all jobs share.
    first = await desk.start_job(
        REPO,
        "one",
        agent_command=f'sh -c "{agent("write:a.txt=a", "commit:a")} && git branch worker/2/x"',
    )
    report = await desk.wait(first)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.branch == "worker/1", report
    assert "worker/2/x" in branches(clone)
    second = await desk.start_job(REPO, "two", agent_command=agent("write:b.txt=b", "commit:b"))
    assert second == 2
    report = await desk.wait(second)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert report.branch == "worker/2-1", report
    assert (clone / "b.txt").read_text() == "b"


async def test_a_lock_a_killed_git_left_in_the_clone_is_removed(
    desk: DeskClient, clone: Path
) -> None:
    lock = clone / ".git" / "index.lock"
    lock.write_text("")
    an_hour_ago = time.time() - 3600
    os.utime(lock, (an_hour_ago, an_hour_ago))
    number = await desk.start_job(REPO, "one", agent_command=agent("write:a.txt=a", "commit:a"))
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["a"]
    assert (clone / "a.txt").read_text() == "a"
    assert not lock.exists()


async def test_a_lock_a_live_process_holds_is_waited_out_not_refused(
    desk: DeskClient, client: Client, clone: Path, tmp_path: Path
) -> None:
    lock = clone / ".git" / "index.lock"
    release = tmp_path / "release"
    # Another git at work in the clone (a person's `git commit`, say): it holds the lock open.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys, time\n"
            "handle = open(sys.argv[1], 'x')\n"
            "while not os.path.exists(sys.argv[2]): time.sleep(0.05)\n"
            "os.unlink(sys.argv[1])\n",
            str(lock),
            str(release),
        ]
    )
    try:
        await until(lock.exists, "the holder to take the lock")
        number = await desk.start_job(REPO, "one", agent_command=agent("write:a.txt=a", "commit:a"))
        entity = client.get_workflow_handle(repo_workflow_id(REPO))

        async def integrate_retried() -> bool:
            try:
                pending = (await entity.describe()).raw_description.pending_activities
            except RPCError:  # the entity starts when the agent is done
                return False
            return any(
                activity.activity_type.name == "integrate" and activity.attempt >= 2
                for activity in pending
            )

        await until(integrate_retried, "the integration to be retried")
        assert lock.exists(), "a lock a live process holds must not be removed"
        release.touch()
        report = await desk.wait(number)
    finally:
        release.touch()
        await asyncio.to_thread(holder.wait, 10)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (clone / "a.txt").read_text() == "a"


def test_a_lock_is_removed_only_inside_a_step_that_began_after_it(tmp_path: Path) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    git(checkout, "init", "--quiet")
    (checkout / "a.txt").write_text("a\n")
    lock = checkout / ".git" / "index.lock"
    lock.write_text("")
    with pytest.raises(GitBusyError, match="retried"):
        run_git(checkout, "add", "a.txt")  # outside a step nobody can tell: it stays
    assert lock.exists()
    lock.unlink()
    with git_step():
        lock.write_text("")  # made while the step runs: another git's, it stays
        with pytest.raises(GitBusyError):
            run_git(checkout, "add", "a.txt")
    assert lock.exists()
    an_hour_ago = time.time() - 3600
    os.utime(lock, (an_hour_ago, an_hour_ago))
    with git_step():
        run_git(checkout, "add", "a.txt")
    assert not lock.exists()
    assert git(checkout, "diff", "--cached", "--name-only") == "a.txt"


def test_a_failure_that_does_not_pass_is_a_plain_git_error(tmp_path: Path) -> None:
    with pytest.raises(GitError) as failed:
        run_git(tmp_path, "rev-parse", "--verify", "no-such-ref")
    assert not isinstance(failed.value, GitBusyError)


def test_a_worktree_is_cut_at_the_clones_head_even_a_detached_one(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "init", "--quiet", "--initial-branch=main", str(clone))
    for message in ("one", "two"):
        git(clone, "commit", "--quiet", "--allow-empty", "-m", message)
    git(clone, "checkout", "--quiet", "--detach", "HEAD~1")
    branch, base = cut_worktree(clone, tmp_path / "job", 7)
    assert (branch, base) == ("worker/7", git(clone, "rev-parse", "HEAD"))
    assert git(tmp_path / "job", "rev-parse", "HEAD") == base != git(clone, "rev-parse", "main")


def test_a_clone_with_an_unborn_head_is_refused_in_gits_words(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "init", "--quiet", "--initial-branch=main", str(clone))
    git(clone, "commit", "--quiet", "--allow-empty", "-m", "one")
    git(clone, "checkout", "--quiet", "--orphan", "nothing-yet")
    with pytest.raises(GitError, match="HEAD"):
        cut_worktree(clone, tmp_path / "job", 7)
    assert not (tmp_path / "job").exists()


def a_checkout(tmp_path: Path) -> Path:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    git(checkout, "init", "--quiet", "--initial-branch=main")
    return checkout


def test_the_status_of_an_unborn_branch_names_the_branch_and_no_commit(tmp_path: Path) -> None:
    checkout = a_checkout(tmp_path)
    (checkout / "new file.txt").write_text("new\n")

    assert checkout_status(checkout) == CheckoutStatus("", "main", ["new file.txt"])


def test_the_status_names_every_kind_of_change_by_its_path(tmp_path: Path) -> None:
    checkout = a_checkout(tmp_path)
    for name in ("kept.txt", "old name.txt", "theirs.txt"):
        (checkout / name).write_text(f"{name}\n")
    git(checkout, "add", "-A")
    git(checkout, "commit", "--quiet", "-m", "initial")
    git(checkout, "checkout", "--quiet", "-b", "other")
    (checkout / "theirs.txt").write_text("other\n")
    git(checkout, "commit", "--quiet", "-am", "other")
    git(checkout, "checkout", "--quiet", "main")
    (checkout / "theirs.txt").write_text("main\n")
    git(checkout, "commit", "--quiet", "-am", "main")
    subprocess.run(["git", "merge", "--quiet", "other"], cwd=checkout, capture_output=True)
    git(checkout, "mv", "old name.txt", "new name.txt")
    (checkout / "kept.txt").write_text("changed\n")
    (checkout / "sub").mkdir()
    (checkout / "sub" / "untracked.txt").write_text("new\n")

    status = checkout_status(checkout)

    assert (status.branch, len(status.head)) == ("main", 40)
    assert sorted(status.dirty) == [
        "kept.txt", "new name.txt", "sub/untracked.txt", "theirs.txt"
    ]  # fmt: skip


def test_the_status_of_a_detached_head_names_no_branch(tmp_path: Path) -> None:
    checkout = a_checkout(tmp_path)
    git(checkout, "commit", "--quiet", "--allow-empty", "-m", "initial")
    git(checkout, "checkout", "--quiet", "--detach")

    status = checkout_status(checkout)

    assert status == CheckoutStatus(git(checkout, "rev-parse", "HEAD"), "", [])


@pytest.mark.parametrize("layout", ["gitdir-file", "symlink", "commondir"])
def test_a_clone_whose_git_dir_lives_elsewhere_is_refused_before_git_runs(
    tmp_path: Path, layout: str
) -> None:
    """`git clone --separate-git-dir` (a `gitdir:` file), a `.git` symlink, or a git directory
    whose `commondir` leads out: the clone's git lives outside it, and the shelf refuses it."""
    settings = load_settings(home=str(tmp_path / "home"))
    origin = a_checkout(tmp_path)
    git(origin, "commit", "--quiet", "--allow-empty", "-m", "initial")
    clone = clone_path(settings, "acme/api")
    clone.parent.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    if layout == "gitdir-file":
        git(tmp_path, "clone", "--quiet", "--separate-git-dir", str(elsewhere),
            str(origin), str(clone))  # fmt: skip
    else:
        git(tmp_path, "clone", "--quiet", str(origin), str(clone))
        if layout == "symlink":
            (clone / ".git").rename(elsewhere)
            (clone / ".git").symlink_to(elsewhere)
        else:
            (clone / ".git").rename(elsewhere)
            (clone / ".git").mkdir()
            (clone / ".git" / "commondir").write_text(f"{elsewhere}\n")
    (elsewhere / "MERGE_HEAD").write_text(git(origin, "rev-parse", "HEAD") + "\n")

    with pytest.raises(GitDirEscapeError) as refused:
        existing_clone(settings, "acme/api")

    message = str(refused.value)
    assert f"The clone of acme/api at {clone} keeps its git directory outside" in message
    assert str(elsewhere) in message and "codedesk repo add acme/api" in message


def test_a_git_dir_linked_inside_the_clone_is_its_own(tmp_path: Path) -> None:
    settings = load_settings(home=str(tmp_path / "home"))
    origin = a_checkout(tmp_path)
    git(origin, "commit", "--quiet", "--allow-empty", "-m", "initial")
    clone = clone_path(settings, "acme/api")
    git(tmp_path, "clone", "--quiet", str(origin), str(clone))
    (clone / ".git").rename(clone / ".git-real")
    (clone / ".git").symlink_to(clone / ".git-real")
    assert existing_clone(settings, "acme/api") == clone
