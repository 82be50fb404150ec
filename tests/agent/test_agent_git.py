"""Taking a sandboxed agent's branch back: what the agent left in git's files cannot reach the
host (real git, a real worktree; the agent's writes are made by hand as it could make them)."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.agent.process.agent_git import AgentGit, agent_git, prepare, take_back
from activities.git.worktree_admin import worktree_list_lock
from activities.jobs.worktrees import WorktreeActivities
from activities.sandbox.bubblewrap import BWRAP, SandboxLayout, bwrap_argv, choose_sandbox
from activities.shelf_paths import job_dir, worktree_path
from desk.config.settings import DeskSettings, load_settings
from desk.payloads.jobs import (
    DiscardWorktreeInput,
    PrepareWorktreeInput,
    ReleaseWorktreeInput,
    Worktree,
)
from tests.helpers.agent_runs.agent_git import a_job, agent_branch_at
from tests.helpers.repos import git

SAFETY_NET = 60
"""Seconds before a hung take-back fails the test instead of hanging the suite."""


def a_shelf_job(settings: DeskSettings, number: int = 1) -> tuple[Path, Worktree]:
    """Job `number`'s worktree of acme/api, cut from a clone on the shelf of `settings`."""
    clone = settings.shelf_dir / "acme" / "api"
    clone.mkdir(parents=True)
    git(clone, "init", "--quiet", "--initial-branch=main")
    (clone / "README.md").write_text("# sample\n")
    git(clone, "add", "-A")
    git(clone, "commit", "--quiet", "-m", "initial")
    path = worktree_path(settings, "acme/api", number)
    branch = f"worker/{number}"
    git(clone, "worktree", "add", "--quiet", "-b", branch, str(path))
    return clone, Worktree(path=str(path), branch=branch, base=git(clone, "rev-parse", "HEAD"))


def test_links_and_pointers_the_agent_planted_are_gone_before_host_git_runs(
    tmp_path: Path,
) -> None:
    clone, worktree = a_job(tmp_path)
    layout = agent_git(tmp_path / "job", worktree)
    prepare(layout)
    victim = tmp_path / "owner-file"
    victim.write_text("the owner's\n")
    # What the agent could write: a reflog that is a link, a git dir pointer to its own repo,
    # a worktree config, a lock on its worktree (a folder, to trip a plain unlink) and a
    # `commondir` naming another git dir.
    (layout.admin / "logs").mkdir(exist_ok=True)
    (layout.admin / "logs" / "HEAD").unlink(missing_ok=True)
    (layout.admin / "logs" / "HEAD").symlink_to(victim)
    (Path(worktree.path) / ".git").write_text(f"gitdir: {tmp_path / 'evil'}\n")
    (layout.admin / "config.worktree").write_text('[core]\n\tfsmonitor = "touch pwned"\n')
    (layout.admin / "locked").mkdir()
    (layout.admin / "commondir").write_text(f"{tmp_path / 'evil'}\n")
    # A folder where the take-back stages its new `commondir`, as one who read our code plants.
    (layout.admin / ".commondir.codedesk-new" / "inside").mkdir(parents=True)

    take_back(layout)

    assert not (layout.admin / "logs" / "HEAD").is_symlink()
    assert not (layout.admin / "config.worktree").exists()
    assert not (layout.admin / "locked").exists()
    assert (layout.admin / "commondir").read_text() == "../..\n"
    assert (Path(worktree.path) / ".git").read_text() == f"gitdir: {layout.admin}\n"
    # Host-side git in the worktree now sees the clone's branch, and the owner's file is intact.
    git(Path(worktree.path), "commit", "--quiet", "--allow-empty", "-m", "host side")
    assert git(clone, "log", "-1", "--format=%s", "worker/1") == "host side"
    assert victim.read_text() == "the owner's\n"


def test_a_branch_deleted_beside_the_jobs_as_the_agent_starts_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another job integrates and deletes its branch `worker/16` between the listing of the
    refs beside this job's branch and their copy: the copy skips it (a bench saw the agent's
    attempt fail on it)."""
    clone, worktree = a_job(tmp_path)
    git(clone, "branch", "worker/16")
    gone = clone / ".git" / "refs" / "heads" / "worker" / "16"
    real_copy = shutil.copy2

    def copy_after_the_other_job_integrated(source: str, target: Path) -> object:
        if Path(source) == gone:
            git(clone, "branch", "--quiet", "-D", "worker/16")
        return real_copy(source, target)

    monkeypatch.setattr(shutil, "copy2", copy_after_the_other_job_integrated)
    layout = agent_git(tmp_path / "job", worktree)
    prepare(layout)
    assert sorted(path.name for path in layout.refs.iterdir()) == ["1"]
    assert (layout.refs / "1").read_text().strip() == worktree.base


def test_the_take_back_waits_for_the_clones_worktree_list(tmp_path: Path) -> None:
    """Another job's `git worktree add` reads every worktree's admin dir: one that read
    `commondir` while a take-back rewrote it failed ("failed to read .git/worktrees/9/
    commondir: Success"), and that job was refused. The take-back holds the clone's lock."""
    clone, worktree = a_job(tmp_path)
    layout = agent_git(tmp_path / "job", worktree)
    prepare(layout)
    (layout.admin / "commondir").write_text(f"{tmp_path / 'evil'}\n")
    taking_back = threading.Thread(target=take_back, args=(layout,))
    with worktree_list_lock(clone):
        taking_back.start()
        taking_back.join(timeout=2)  # a take-back that ignores the lock is done in far less
        assert taking_back.is_alive(), "the take-back rewrote git's files under another's lock"
        assert (layout.admin / "commondir").read_text() == f"{tmp_path / 'evil'}\n"
    taking_back.join(timeout=SAFETY_NET)
    assert (layout.admin / "commondir").read_text() == "../..\n"
    leftovers = [p.name for p in (*layout.admin.iterdir(), *Path(worktree.path).iterdir())]
    assert not [name for name in leftovers if name.endswith(".codedesk-new")], leftovers


def test_a_reader_never_sees_a_pointer_half_written(tmp_path: Path) -> None:
    """Each pointer file is replaced whole: git reading it at any moment finds it complete."""
    _, worktree = a_job(tmp_path)
    layout = agent_git(tmp_path / "job", worktree)
    prepare(layout)
    seen: set[str] = set()
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            for name in ("commondir", "gitdir", "HEAD"):
                try:
                    seen.add((layout.admin / name).read_text())
                except FileNotFoundError:
                    seen.add("missing")

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(200):
            take_back(layout)
    finally:
        done.set()
        reader.join()
    assert "" not in seen and "missing" not in seen, seen


@pytest.mark.skipif(choose_sandbox("auto").mode != BWRAP, reason="bubblewrap does not work here")
@pytest.mark.parametrize("packed", [False, True], ids=["loose-refs", "packed-refs"])
@pytest.mark.parametrize("branch", ["worker/1", "worker-1"])
def test_the_agent_commits_on_its_branch_whatever_its_name(
    tmp_path: Path, branch: str, packed: bool
) -> None:
    # A branch without a slash has `refs/heads` itself as its ref folder: the folder that
    # stands in for it must still show the clone's other branches (main) to the agent. A
    # packed branch has no file of its own there, and is found all the same.
    clone, worktree = a_job(tmp_path, branch)
    if packed:
        git(clone, "pack-refs", "--all")
        assert not (clone / ".git" / "refs" / "heads" / branch).exists()
    layout = agent_git(tmp_path / "job", worktree)
    prepare(layout)
    assert (layout.refs / layout.leaf).read_text() == f"{worktree.base}\n"
    writable, readable = layout.binds()
    sandbox = SandboxLayout(Path(worktree.path), writable=writable, readable=readable)
    script = (
        "git rev-parse --verify --quiet main >/dev/null && echo work >work.txt && git add -A && "
        "git -c user.name=a -c user.email=a@codedesk.invalid commit --quiet -m agent"
    )
    env = {**os.environ, **layout.environment()}
    done = subprocess.run(
        bwrap_argv(sandbox, ["sh", "-c", script]), env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert git(clone, "log", "-1", "--format=%s", branch) == "initial"  # not yet taken back

    take_back(layout)

    assert git(clone, "log", "--format=%s", branch).splitlines() == ["agent", "initial"]
    assert git(clone, "log", "--format=%s", "main").splitlines() == ["initial"]
    assert git(Path(worktree.path), "status", "--porcelain") == ""


async def test_a_job_ended_without_a_take_back_is_settled_before_host_git_runs(
    tmp_path: Path,
) -> None:
    # The agent's worker died mid-attempt and the job was cancelled: no take-back ran. The
    # agent had pointed the worktree at a repository of its own whose config runs a filter.
    settings = load_settings(home=tmp_path / "home")
    clone, worktree = a_shelf_job(settings)
    path = Path(worktree.path)
    prepare(agent_git(job_dir(settings, 1), worktree))
    evil, pwned = tmp_path / "evil", tmp_path / "pwned"
    git(tmp_path, "init", "--quiet", str(evil))
    git(evil, "config", "filter.x.clean", f"touch {pwned}; cat")
    (path / ".gitattributes").write_text("* filter=x\n")
    (path / "README.md").write_text("# changed\n")
    (path / ".git").write_text(f"gitdir: {evil / '.git'}\n")

    released = await ActivityEnvironment().run(
        WorktreeActivities(settings).release_worktree,
        ReleaseWorktreeInput(number=1, repo="acme/api", worktree=worktree),
    )

    assert not pwned.exists()
    assert released.kept, released
    assert (path / ".git").read_text() == f"gitdir: {clone / '.git' / 'worktrees' / '1'}\n"


async def test_releasing_the_worktree_of_a_clone_that_is_gone_is_a_no_op(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Someone deleted the clone while its job ran: the job's cleanup must not fail on it.
    settings = load_settings(home=tmp_path / "home")
    clone, worktree = a_shelf_job(settings)
    path = Path(worktree.path)
    shutil.rmtree(clone)

    released = await ActivityEnvironment().run(
        WorktreeActivities(settings).release_worktree,
        ReleaseWorktreeInput(number=1, repo="acme/api", worktree=worktree),
    )

    assert released.kept, released  # nothing is removed without git to say what it holds
    assert path.is_dir()
    assert "is not on the shelf" in caplog.text and str(path) in caplog.text, caplog.text


async def test_a_cut_that_begins_after_its_job_discarded_the_worktree_is_refused(
    tmp_path: Path,
) -> None:
    # The cancelled job's discard got the job's lock before the cancelled cut's thread did.
    settings = load_settings(home=tmp_path / "home")
    clone, _ = a_shelf_job(settings, number=2)
    trees = WorktreeActivities(settings)

    found = await ActivityEnvironment().run(
        trees.discard_worktree, DiscardWorktreeInput(number=1, repo="acme/api")
    )
    with pytest.raises(ApplicationError, match="Job 1 was cancelled") as refused:
        await ActivityEnvironment().run(
            trees.prepare_worktree, PrepareWorktreeInput(number=1, repo="acme/api")
        )

    assert not found
    assert refused.value.type == "WorktreeDiscardedError" and refused.value.non_retryable
    assert not worktree_path(settings, "acme/api", 1).exists()
    assert (
        git(clone, "for-each-ref", "--format=%(refname:short)", "refs/heads/") == "main\nworker/2"
    )


def agent_writes(layout: AgentGit, worktree: Worktree, *args: str, stdin: str = "") -> str:
    """`git <args>` in the worktree as the sandboxed agent runs it: objects into its own
    store, the clone's read through alternates."""
    env = {**os.environ, **layout.environment()}
    done = subprocess.run(
        ["git", *args],
        cwd=worktree.path,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.parametrize("kind", ["tree", "tag", "blob"])
def test_an_agent_branch_set_to_an_object_that_is_no_commit_is_not_taken_back(
    tmp_path: Path, kind: str
) -> None:
    clone, worktree = a_job(tmp_path)
    layout = agent_git(tmp_path / "job", worktree)
    prepare(layout)
    tree = agent_writes(layout, worktree, "write-tree")
    objects = {
        "tree": lambda: tree,
        "blob": lambda: agent_writes(layout, worktree, "hash-object", "-w", "--stdin", stdin="x"),
        "tag": lambda: agent_writes(
            layout,
            worktree,
            "mktag",
            stdin=f"object {worktree.base}\ntype commit\ntag v1\n"
            "tagger a <a@codedesk.invalid> 0 +0000\n\nv1\n",
        ),
    }
    agent_branch_at(layout, objects[kind]())

    told = take_back(layout)

    assert f"branch {worktree.branch} is unchanged" in told, told
    assert git(clone, "rev-parse", worktree.branch) == worktree.base


def test_an_agent_commit_whose_tree_is_missing_is_not_taken_back(tmp_path: Path) -> None:
    clone, worktree = a_job(tmp_path)
    layout = agent_git(tmp_path / "job", worktree)
    prepare(layout)
    (Path(worktree.path) / "new.txt").write_text("new\n")
    agent_writes(layout, worktree, "add", "new.txt")
    tree = agent_writes(layout, worktree, "write-tree")
    commit = agent_writes(
        layout,
        worktree,
        "-c", "user.name=a", "-c", "user.email=a@codedesk.invalid",
        "commit-tree", tree, "-p", worktree.base, "-m", "agent",
    )  # fmt: skip
    (layout.objects / tree[:2] / tree[2:]).unlink()
    agent_branch_at(layout, commit)

    told = take_back(layout)

    assert f"branch {worktree.branch} is unchanged" in told, told
    assert git(clone, "rev-parse", worktree.branch) == worktree.base
    assert subprocess.run(["git", "-C", str(clone), "cat-file", "-e", commit]).returncode != 0
