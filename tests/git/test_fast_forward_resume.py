"""Finishing a fast-forward a killed git left halfway, and refusing a clone someone else changed
(activities/git/fast_forward.py), on states made as git leaves them: real git, no worker."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from activities.git.fast_forward import finish_fast_forward
from activities.git_locks import git_step
from desk.errors import GitBusyError
from tests.helpers.repos import git

FILES = 300


def name(number: int) -> str:
    return f"d{number // 10}/f{number}.txt"


@pytest.fixture
def clone(tmp_path: Path) -> Iterator[Path]:
    """A clone at A (FILES files), with B (every file changed, one removed, one added, one
    made executable) fetched but not checked out."""
    clone = tmp_path / "clone"
    clone.mkdir()
    git(clone, "init", "--quiet", "--initial-branch=main")
    for number in range(FILES):
        (clone / name(number)).parent.mkdir(exist_ok=True)
        (clone / name(number)).write_text(f"{number} A\n")
    git(clone, "add", "-A")
    git(clone, "commit", "--quiet", "-m", "A")
    git(clone, "switch", "--quiet", "-c", "b")
    for number in range(FILES):
        (clone / name(number)).write_text(f"{number} B\n")
    (clone / name(0)).unlink()
    (clone / "added.txt").write_text("added in B\n")
    (clone / name(1)).chmod(0o755)
    git(clone, "add", "-A")
    git(clone, "commit", "--quiet", "-m", "B")
    git(clone, "switch", "--quiet", "main")
    with git_step():
        yield clone


def ends(clone: Path) -> tuple[str, str]:
    return git(clone, "rev-parse", "main"), git(clone, "rev-parse", "b")


def written_up_to(clone: Path, tip: str, count: int) -> None:
    """As `git merge --ff-only` leaves the files after writing `count` of them: in index order,
    each as the tip has it; the index and HEAD untouched."""
    changed = git(clone, "diff", "--name-only", "HEAD", tip).splitlines()
    for path in sorted(changed)[:count]:
        target = clone / path
        blob = git(clone, "cat-file", "-p", f"{tip}:{path}") + "\n" if path != name(0) else None
        if blob is None:
            target.unlink()
        else:
            target.write_text(blob)
            if path == name(1):
                target.chmod(0o755)


def status(clone: Path) -> str:
    return git(clone, "--no-optional-locks", "status", "--porcelain", "--untracked-files=all")


def test_a_clone_halfway_with_the_killed_gits_lock_is_finished(clone: Path) -> None:
    onto, tip = ends(clone)
    written_up_to(clone, tip, FILES // 2)
    (clone / ".git" / "index.lock").touch()
    old = os.path.getmtime(clone / ".git" / "index.lock") - 60
    os.utime(clone / ".git" / "index.lock", (old, old))  # the killed git made it before the step
    # The file git was writing when it died: created, not yet written.
    cut = sorted(git(clone, "diff", "--name-only", "HEAD", tip).splitlines())[FILES // 2]
    (clone / cut).write_text("")

    resumed = finish_fast_forward(clone, onto, tip, 10)

    assert resumed is not None and not resumed.refusal, resumed
    assert git(clone, "rev-parse", "HEAD") == tip and not status(clone)
    assert not (clone / ".git" / "index.lock").exists()


def test_a_clone_whose_index_was_written_but_not_its_branch_is_finished(clone: Path) -> None:
    onto, tip = ends(clone)
    git(clone, "read-tree", "--reset", "-u", tip)  # files and index done, HEAD not moved

    resumed = finish_fast_forward(clone, onto, tip, 10)

    assert resumed is not None and not resumed.refusal, resumed
    assert git(clone, "rev-parse", "HEAD") == tip and not status(clone)


@pytest.mark.parametrize(
    "edit",
    ["a file not reached yet", "a file written", "an untracked file", "the index"],
)
def test_a_clone_someone_else_changed_too_is_refused_and_left_as_it_is(
    clone: Path, edit: str
) -> None:
    onto, tip = ends(clone)
    written_up_to(clone, tip, FILES // 2)
    theirs = {
        "a file not reached yet": name(FILES - 1),
        "a file written": name(2),
        "an untracked file": "notes.txt",
        "the index": name(FILES - 2),
    }[edit]
    (clone / theirs).write_text("a person's edit\n")
    if edit == "the index":
        git(clone, "add", theirs)
    found = status(clone)

    resumed = finish_fast_forward(clone, onto, tip, 10)

    assert resumed is not None and resumed.refusal, resumed
    assert theirs in resumed.refusal and f"git reset --hard {onto[:12]}" in resumed.refusal
    assert git(clone, "rev-parse", "HEAD") == onto and status(clone) == found


def test_a_clean_clone_or_one_with_no_trace_of_the_fast_forward_is_not_ours(clone: Path) -> None:
    onto, tip = ends(clone)
    assert finish_fast_forward(clone, onto, tip, 10) is None
    (clone / name(FILES - 1)).write_text("a person's edit\n")  # no file as the tip has it
    assert finish_fast_forward(clone, onto, tip, 10) is None
    git(clone, "checkout", "--quiet", "--", ".")
    git(clone, "commit", "--quiet", "--allow-empty", "-m", "someone's commit")
    written_up_to(clone, tip, 10)
    assert finish_fast_forward(clone, onto, tip, 10) is None, "HEAD is not at the plan's onto"


def test_a_lock_a_live_git_holds_is_waited_for(clone: Path) -> None:
    onto, tip = ends(clone)
    written_up_to(clone, tip, FILES // 2)
    lock = clone / ".git" / "index.lock"
    with lock.open("w") as held:  # a git of someone's still at work: it has the lock open
        fcntl.flock(held, fcntl.LOCK_EX)
        old = os.path.getmtime(lock) - 60
        os.utime(lock, (old, old))
        with pytest.raises(GitBusyError):
            finish_fast_forward(clone, onto, tip, 10)
    assert git(clone, "rev-parse", "HEAD") == onto
