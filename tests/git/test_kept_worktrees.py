"""Kept worktrees against what an untrusted agent of an earlier job leaves in one: each attack is
made as an agent would make it, then the next job takes the same worktree and must find it
exactly as a new cut at the clone's HEAD (activities/git/job_worktree.py): real git, no worker.

The oracle (`picture`) is every entry of the worktree (kind, mode, content or link target,
extended attributes), its admin dir's files and its index's flags, compared with those of a
new `git worktree add` of the same commit.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from activities.git.branches import CUT_RECORD
from activities.git.job_worktree import (
    KEPT_RECORD,
    hand_back,
    keep_for_its_work,
    take_out,
    undo_take_out,
)
from activities.git.kept import KeptTree, KeptWorktrees
from activities.git_locks import git_step
from tests.helpers.repos import git

GITLINK_COMMIT = "1" * 40


@dataclass
class Shelf:
    """A clone and the places a worker keeps its worktrees and job folders."""

    root: Path
    clone: Path

    @property
    def trees(self) -> Path:
        return self.root / ".worktrees" / "acme" / "api"

    def kept(self, size: int = 2) -> KeptWorktrees:
        return KeptWorktrees(self.clone, self.trees / ".kept", size)

    def folder(self, number: int) -> Path:
        folder = self.root / "jobs" / str(number)
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def path(self, number: int) -> Path:
        return self.trees / str(number)

    def take(self, number: int, size: int = 2) -> tuple[Path, str]:
        """Job `number` takes its worktree (as `prepare_worktree` does); its path and branch."""
        path = self.path(number)
        path.parent.mkdir(parents=True, exist_ok=True)
        branch, base = take_out(self.kept(size), path, number, self.folder(number))
        assert base == git(self.clone, "rev-parse", "HEAD")
        return path, branch

    def give_back(self, number: int, branch: str, size: int = 2) -> None:
        """The job ends with nothing kept (as `integrate` does for `nothing`)."""
        hand_back(self.kept(size), self.path(number), self.folder(number))
        git(self.clone, "branch", "--quiet", "-D", branch)

    def name_of(self, number: int) -> str:
        """The pool name of the worktree job `number` had (its admin dir's name)."""
        tree = KeptTree.read(self.folder(number) / KEPT_RECORD)
        assert tree is not None
        return tree.name

    def admin(self, path: Path) -> Path:
        return Path((path / ".git").read_text().strip().removeprefix("gitdir: "))

    def commit(self, message: str, files: dict[str, str]) -> None:
        for name, text in files.items():
            (self.clone / name).parent.mkdir(parents=True, exist_ok=True)
            (self.clone / name).write_text(text)
        git(self.clone, "add", "-A")
        git(self.clone, "commit", "--quiet", "-m", message)


@pytest.fixture
def shelf(tmp_path: Path) -> Iterator[Shelf]:
    clone = tmp_path / "shelf" / "acme" / "api"
    clone.mkdir(parents=True)
    git(clone, "init", "--quiet", "--initial-branch=main")
    made = Shelf(tmp_path / "shelf", clone)
    files = {f"src/part{n}/file{k}.py": f"# {n}.{k}\n" for n in range(3) for k in range(4)}
    files |= {".gitignore": "build/\n*.log\n", "README.md": "# api\n", "bin/tool": "#!/bin/sh\n"}
    made.commit("initial", files)
    (clone / "bin" / "tool").chmod(0o755)
    os.symlink("README.md", clone / "readme-link")
    git(clone, "add", "-A")
    git(clone, "commit", "--quiet", "-m", "a tool and a link")
    with git_step():
        yield made


Picture = dict[str, tuple[str, ...]]


def picture(path: Path) -> Picture:
    """Every entry under `path` but its `.git` file: kind, mode, content, attributes."""
    seen: Picture = {}
    for root, folders, files in os.walk(path):
        for name in [*folders, *files]:
            full = Path(root, name)
            relative = str(full.relative_to(path))
            if relative == ".git":
                continue
            info = full.lstat()
            attributes = tuple(sorted(os.listxattr(full, follow_symlinks=False)))
            if stat.S_ISLNK(info.st_mode):
                seen[relative] = ("link", os.readlink(full), *attributes)
            elif stat.S_ISDIR(info.st_mode):
                seen[relative] = ("folder", oct(stat.S_IMODE(info.st_mode)), *attributes)
            elif stat.S_ISREG(info.st_mode):
                mode = oct(stat.S_IMODE(info.st_mode))
                seen[relative] = ("file", mode, full.read_text(errors="replace"), *attributes)
            else:
                seen[relative] = ("special", oct(info.st_mode))
    top = path.lstat()
    seen["."] = ("top", oct(stat.S_IMODE(top.st_mode)), *os.listxattr(path))
    return seen


def fresh_picture(shelf: Shelf) -> Picture:
    """The picture of a new cut at the clone's HEAD."""
    fresh = shelf.root / "fresh"
    git(shelf.clone, "worktree", "add", "--quiet", "--detach", str(fresh), "HEAD")
    try:
        return picture(fresh)
    finally:
        git(shelf.clone, "worktree", "remove", "--force", str(fresh))


def assert_as_cut(shelf: Shelf, path: Path, branch: str) -> None:
    """The worktree is what a new cut of the clone's HEAD on `branch` would be; its admin dir
    holds what git's own cut writes there (a kept one's only its pointers, HEAD and index)."""
    assert picture(path) == fresh_picture(shelf)
    admin = shelf.admin(path)
    assert set(os.listdir(admin)) - {"ORIG_HEAD", "logs"} == {
        "HEAD",
        "commondir",
        "gitdir",
        "index",
    }
    if (admin / "logs").exists():
        assert os.listdir(admin / "logs") == ["HEAD"]
        assert "planted" not in (admin / "logs" / "HEAD").read_text()
    assert (admin / "HEAD").read_text() == f"ref: refs/heads/{branch}\n"
    assert (admin / "gitdir").read_text().strip() == str(path / ".git")
    flags = {line[:2] for line in git(path, "ls-files", "-v").splitlines()}
    assert flags == {"H "}, "no entry is marked assume-unchanged or skip-worktree"
    assert git(path, "status", "--porcelain", "--ignored", "--untracked-files=all") == ""
    assert git(path, "rev-parse", "HEAD") == git(shelf.clone, "rev-parse", "HEAD")


def outside(shelf: Shelf) -> Path:
    """A folder outside the worktree holding a file that must survive every clean."""
    folder = shelf.root.parent / "outside"
    folder.mkdir(exist_ok=True)
    (folder / "file0.py").write_text("must stay\n")
    return folder


def same_content_other_stat(path: Path) -> None:
    """Change a tracked file's content but not its size, and put its times back."""
    target = path / "src" / "part0" / "file0.py"
    before = target.stat()
    target.write_text("# 6.6\n")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))


def skip_worktree(path: Path) -> None:
    git(path, "update-index", "--skip-worktree", "src/part1/file1.py")
    (path / "src" / "part1" / "file1.py").write_text("hidden by the index\n")


def assume_unchanged(path: Path) -> None:
    git(path, "update-index", "--assume-unchanged", "src/part1/file2.py")
    (path / "src" / "part1" / "file2.py").write_text("hidden too\n")


def ignored_and_untracked(path: Path) -> None:
    (path / "build" / "deep").mkdir(parents=True)
    (path / "build" / "deep" / "out.o").write_text("object\n")
    (path / "debug.log").write_text("log\n")
    (path / "untracked.txt").write_text("left\n")
    (path / "empty" / "folders").mkdir(parents=True)
    (path / "src" / "part2" / "__pycache__").mkdir()
    (path / "src" / "part2" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (path / ".gitattributes").write_text("*.py filter=evil\n")


def nested_repository(path: Path) -> None:
    nested = path / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "--quiet")
    (nested / "code.c").write_text("int x;\n")
    (path / "src" / ".git").write_text("gitdir: /nowhere\n")


def modes(path: Path) -> None:
    (path / "README.md").chmod(0o777)
    (path / "bin" / "tool").chmod(0o644)
    (path / "src" / "part0" / "file1.py").chmod(0)


def links(path: Path) -> None:
    """A tracked file and a tracked folder replaced by links to things outside the worktree."""
    target = path.parent.parent.parent.parent.parent / "outside"
    (path / "src" / "part2" / "file3.py").unlink()
    os.symlink("/etc/hostname", path / "src" / "part2" / "file3.py")
    for child in (path / "src" / "part0").iterdir():
        child.chmod(0o644)
        child.unlink()
    (path / "src" / "part0").rmdir()
    os.symlink(target, path / "src" / "part0")
    os.symlink(target, path / "escape")


def special_files(path: Path) -> None:
    os.mkfifo(path / "pipe")
    (path / "src" / "part1" / "file3.py").unlink()
    os.mkfifo(path / "src" / "part1" / "file3.py")
    os.link(path / "README.md", path / "hardlink-of-readme")


def the_git_file(path: Path) -> None:
    """The worktree's `.git` file made a repository of the agent's own."""
    (path / ".git").unlink()
    git(path, "init", "--quiet")


def admin_dir(path: Path) -> None:
    """Everything an agent can write in its worktree's admin dir."""
    admin = Path((path / ".git").read_text().strip().removeprefix("gitdir: "))
    (admin / "config.worktree").write_text(
        "[core]\n\thooksPath = /tmp/evil\n\tsparseCheckout = true\n"
    )
    (admin / "info").mkdir(exist_ok=True)
    (admin / "info" / "sparse-checkout").write_text("/README.md\n")
    (admin / "refs" / "worktree").mkdir(parents=True, exist_ok=True)
    (admin / "refs" / "worktree" / "planted").write_text(git(path, "rev-parse", "HEAD") + "\n")
    (admin / "logs").mkdir(exist_ok=True)
    (admin / "logs" / "HEAD").write_text("planted reflog\n")
    (admin / "ORIG_HEAD").write_text(git(path, "rev-parse", "HEAD") + "\n")
    (admin / "rebase-merge").mkdir(exist_ok=True)
    (admin / "hooks").mkdir(exist_ok=True)
    (admin / "index.lock").write_text("stale\n")
    (admin / "locked").write_text("mine\n")


def racy_change(path: Path) -> None:
    """A change within the same clock tick as the take-out wrote the index: same size, times
    put back."""
    same_content_other_stat(path)


ATTACKS: dict[str, Callable[[Path], None]] = {
    "same-size-change-times-put-back": same_content_other_stat,
    "skip-worktree": skip_worktree,
    "assume-unchanged": assume_unchanged,
    "ignored-and-untracked-files": ignored_and_untracked,
    "nested-repositories": nested_repository,
    "file-modes": modes,
    "links-out-of-the-worktree": links,
    "fifos-and-hard-links": special_files,
    "the-git-file": the_git_file,
    "the-admin-dir": admin_dir,
    "racy-change": racy_change,
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_the_next_job_takes_the_same_worktree_exactly_as_a_new_cut(
    shelf: Shelf, attack: str
) -> None:
    kept_outside = outside(shelf)
    first, branch = shelf.take(1)
    name = shelf.name_of(1)
    ATTACKS[attack](first)
    shelf.give_back(1, branch)
    assert not first.exists()
    shelf.commit("the clone moves on", {"src/part0/file2.py": "# moved\n", "new.txt": "new\n"})

    second, branch = shelf.take(2)
    assert shelf.name_of(2) == name, "the job took the kept worktree"
    assert_as_cut(shelf, second, branch)
    assert (kept_outside / "file0.py").read_text() == "must stay\n"
    assert branch == "worker/2"


def test_a_racy_change_right_after_the_take_out_is_found(shelf: Shelf) -> None:
    first, branch = shelf.take(1)
    racy_change(first)  # no pause: within the tick the index was written in
    shelf.give_back(1, branch)
    second, branch = shelf.take(2)
    assert shelf.name_of(2) == shelf.name_of(1)
    assert_as_cut(shelf, second, branch)


def folder_mode(path: Path) -> None:
    (path / "src" / "part1").chmod(0o777)


def folder_attribute(path: Path) -> None:
    try:
        os.setxattr(path / "src", "user.planted", b"1")
    except OSError as error:
        pytest.skip(f"no user extended attributes here: {error}")


def top_folder_mode(path: Path) -> None:
    path.chmod(0o700)


@pytest.mark.parametrize("attack", [folder_mode, folder_attribute, top_folder_mode])
def test_a_worktree_that_cannot_be_proven_clean_is_rebuilt(
    shelf: Shelf, attack: Callable[[Path], None]
) -> None:
    first, branch = shelf.take(1)
    attack(first)
    shelf.give_back(1, branch)
    old_admin = shelf.trees / ".kept" / shelf.name_of(1)
    assert old_admin.is_dir(), "handed back to the kept ones"

    second, branch = shelf.take(2)
    assert shelf.name_of(2) != shelf.name_of(1), "a new worktree was cut"
    assert not old_admin.exists()
    assert_as_cut(shelf, second, branch)
    listed = git(shelf.clone, "worktree", "list", "--porcelain").count("worktree ")
    assert listed == 2, "the clone and the new one: the old one's entry is gone"


def test_a_submodule_folder_an_agent_filled_is_emptied(shelf: Shelf) -> None:
    git(shelf.clone, "update-index", "--add", "--cacheinfo", f"160000,{GITLINK_COMMIT},sub")
    git(shelf.clone, "commit", "--quiet", "-m", "a submodule")
    first, branch = shelf.take(1)
    (first / "sub" / "planted.txt").write_text("planted\n")
    shelf.give_back(1, branch)
    second, branch = shelf.take(2)
    assert shelf.name_of(2) == shelf.name_of(1)
    assert list((second / "sub").iterdir()) == []
    assert picture(second) == fresh_picture(shelf)


def test_jobs_at_the_same_time_each_take_their_own(shelf: Shelf) -> None:
    trees = [shelf.take(number) for number in (1, 2)]
    for number, (_, branch) in zip((1, 2), trees, strict=True):
        shelf.give_back(number, branch)
    assert len(list((shelf.trees / ".kept").glob("*.index"))) == 2
    results: dict[int, tuple[Path, str]] = {}

    def take(number: int) -> None:
        with git_step():
            results[number] = shelf.take(number)

    threads = [threading.Thread(target=take, args=(number,)) for number in (3, 4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {shelf.name_of(3), shelf.name_of(4)} == {shelf.name_of(1), shelf.name_of(2)}
    for path, branch in results.values():
        assert_as_cut(shelf, path, branch)
    fifth, _ = shelf.take(5)
    assert shelf.name_of(5) not in {shelf.name_of(1), shelf.name_of(2)}, "none idle: a new cut"


def test_a_full_pool_removes_what_comes_back(shelf: Shelf) -> None:
    taken = [shelf.take(number, size=1) for number in (1, 2)]
    for number, (path, branch) in zip((1, 2), taken, strict=True):
        shelf.give_back(number, branch, size=1)
        assert not path.exists()
    idle = [entry.name for entry in (shelf.trees / ".kept").iterdir() if entry.is_dir()]
    assert idle == [shelf.name_of(1)]
    assert sorted(path.name for path in (shelf.trees / ".kept").glob("*.index")) == [
        f"{shelf.name_of(1)}.index"
    ]
    listed = git(shelf.clone, "worktree", "list", "--porcelain").count("worktree ")
    assert listed == 2


def test_no_kept_worktrees_removes_the_idle_ones_and_keeps_none(shelf: Shelf) -> None:
    _, branch = shelf.take(1)
    shelf.give_back(1, branch)
    path, branch = shelf.take(2, size=0)
    assert not (shelf.folder(2) / KEPT_RECORD).exists(), "a new cut, not a kept one"
    assert not [entry for entry in (shelf.trees / ".kept").iterdir() if entry.is_dir()]
    shelf.give_back(2, branch, size=0)
    assert not path.exists()
    assert git(shelf.clone, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_a_hand_back_done_again_leaves_the_kept_one_kept(shelf: Shelf) -> None:
    path, branch = shelf.take(1)
    shelf.give_back(1, branch)
    hand_back(shelf.kept(), path, shelf.folder(1))  # a retried integration, after its receipt
    second, branch = shelf.take(2)
    assert shelf.name_of(2) == shelf.name_of(1)
    assert_as_cut(shelf, second, branch)


def test_a_worktree_kept_for_its_work_never_comes_back(shelf: Shelf) -> None:
    path, _ = shelf.take(1)
    name = shelf.name_of(1)
    (path / "work.txt").write_text("work\n")
    keep_for_its_work(shelf.kept(), shelf.folder(1))
    assert (path / "work.txt").exists()
    assert not (shelf.trees / ".kept" / f"{name}.index").exists()
    _, branch = shelf.take(2)
    assert shelf.name_of(2) != name


def test_a_take_out_killed_after_the_move_is_made_clean_again(shelf: Shelf) -> None:
    first, branch = shelf.take(1)
    (first / "debug.log").write_text("left\n")
    shelf.give_back(1, branch)
    name = shelf.name_of(1)
    second = shelf.path(2)
    # As a worker killed right after the move leaves it: moved, the pointers not rewritten.
    admin = shelf.clone / ".git" / "worktrees" / name
    (shelf.folder(2) / KEPT_RECORD).write_text(KeptTree(name, admin).as_json())
    os.rename(shelf.trees / ".kept" / name, second)

    path, branch = shelf.take(2)
    assert path == second and shelf.name_of(2) == name
    assert_as_cut(shelf, second, branch)


def test_a_take_out_killed_before_its_receipt_is_done_again_on_the_same_branch(
    shelf: Shelf,
) -> None:
    _, branch = shelf.take(1)
    shelf.give_back(1, branch)
    second, branch = shelf.take(2)
    assert json.loads((shelf.folder(2) / CUT_RECORD).read_text())["branch"] == "worker/2"
    # The attempt died before the receipt, its clean half done: a retry takes it again.
    (second / "src" / "part1" / "file0.py").write_text("half written\n")
    (second / "build").mkdir()
    again, branch_again = shelf.take(2)
    assert (again, branch_again) == (second, "worker/2")
    assert shelf.name_of(2) == shelf.name_of(1)
    assert_as_cut(shelf, again, branch_again)
    listed = git(shelf.clone, "for-each-ref", "--format=%(refname:short)", "refs/heads/worker")
    assert listed == "worker/2"


def test_an_idle_worktree_whose_entry_git_pruned_is_removed_not_taken(shelf: Shelf) -> None:
    _, branch = shelf.take(1)
    shelf.give_back(1, branch)
    name = shelf.name_of(1)
    admin = shelf.clone / ".git" / "worktrees" / name
    (admin / "gitdir").write_text("/nowhere/.git\n")  # as a move killed halfway leaves it
    git(shelf.clone, "worktree", "prune")
    assert not admin.exists()
    path, branch = shelf.take(2)
    assert shelf.name_of(2) != name
    assert not (shelf.trees / ".kept" / name).exists()
    assert not (shelf.trees / ".kept" / f"{name}.index").exists()
    assert_as_cut(shelf, path, branch)


def test_a_cancelled_take_out_goes_back_to_the_kept_ones(shelf: Shelf) -> None:
    _, branch = shelf.take(1)
    shelf.give_back(1, branch)
    second, branch = shelf.take(2)
    (shelf.folder(2) / "worktree.json").unlink(missing_ok=True)
    undo_take_out(shelf.kept(), second, shelf.folder(2))
    assert not second.exists()
    assert git(shelf.clone, "branch", "--list", branch) == ""
    third, branch = shelf.take(3)
    assert shelf.name_of(3) == shelf.name_of(1)
    assert_as_cut(shelf, third, branch)


def test_a_worktree_a_process_still_runs_in_is_removed_not_kept(shelf: Shelf) -> None:
    path, branch = shelf.take(1)
    lingering = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**os.environ, "CODEDESK_WORKTREE": str(path)},
    )
    try:
        shelf.give_back(1, branch)
    finally:
        lingering.kill()
        lingering.wait()
    assert not path.exists()
    assert not [entry for entry in (shelf.trees / ".kept").iterdir() if entry.is_dir()]
