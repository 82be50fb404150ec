"""A job's worktree on its branch: a kept one made clean at the clone's HEAD, else a new cut; and
handed back to the kept ones when the job keeps nothing in it.

Cutting a new worktree checks out every file of the repository, and removing it deletes them
all: on a repository of 60,000 files that is most of a job's time. A kept worktree is moved to
the job's path and made exactly what a new cut would be (activities/git/clean_worktree.py):
only the files the clone's HEAD changed since, or that someone touched, are written. One that
cannot be proven clean is removed and a new one cut; the job sees no difference but the time.

Every step is safe to run again: `KEPT_RECORD` (the job's folder, where no agent reaches) names
the kept worktree before it is moved to the job's path, so a retry of a killed step makes the
same one clean again, from the start.
"""

from __future__ import annotations

from pathlib import Path

from temporalio import activity

from activities.git.branches import (
    CUT_RECORD,
    branch_at,
    cut_worktree,
    drop_planned_branch,
    undo_cut,
)
from activities.git.clean_worktree import make_clean, replace_file, reset_admin
from activities.git.git_commands import head_sha
from activities.git.kept import KeptTree, KeptWorktrees
from activities.git.worktree_admin import remove_worktree, worktree_list_lock
from activities.sandbox.processes import processes_with_env

KEPT_RECORD = "worktree-kept.json"
"""In the job's folder: the pool name and admin dir of the job's worktree, written before a
kept one is moved to the job's path, and once a new one is cut."""


def take_out(
    kept: KeptWorktrees, path: Path, number: int, folder: Path, name: str = ""
) -> tuple[str, str]:
    """Give job `number` a worktree at `path` on a new branch at the clone's HEAD (named by
    `job_branch_names`, `name` in place of the number); returns the branch's name and the
    commit. A kept one is taken when there is one, else one is cut."""
    record, cut = folder / KEPT_RECORD, folder / CUT_RECORD
    tree = _taken_before(kept, path, record)
    if tree is None:
        if path.exists() or cut.is_file():  # a cut an earlier attempt died in (no agent ran)
            undo_cut(kept.clone, path, cut)
        tree = kept.take(path, record) if kept.size or kept.folder.is_dir() else None
    if tree is not None:
        made = _made_clean(kept, tree, path, number, cut, name)
        if made is not None:
            return made
        drop_planned_branch(kept.clone, cut)
        remove_worktree(kept.clone, path)
        kept.forget(tree)
        record.unlink(missing_ok=True)
    branch, base = cut_worktree(kept.clone, path, number, cut, name)
    new = kept.admin_of(path) if kept.size else None
    if new is not None:
        kept.save_index(new)
        record.write_text(new.as_json())
    return branch, base


def hand_back(kept: KeptWorktrees, path: Path, folder: Path) -> None:
    """After a job that keeps nothing in its worktree: move it to the kept ones, or remove it
    when they are full, when it is not one they can keep, or when a process of the job's
    still runs in it (a stalled worker's agent): such a worktree is never handed on."""
    if not path.exists():
        remove_worktree(kept.clone, path)  # handed back before: only an entry may be left
        return
    tree = KeptTree.read(folder / KEPT_RECORD)
    if tree is not None and kept.size and path.is_dir():
        if not processes_with_env("CODEDESK_WORKTREE", str(path)) and kept.park(path, tree):
            return
    remove_worktree(kept.clone, path)
    kept.forget(tree)


def undo_take_out(kept: KeptWorktrees, path: Path, folder: Path) -> None:
    """Undo a take-out that left no receipt (its job was cancelled meanwhile): the branch it
    made goes, and the worktree goes back to the kept ones (a take-out makes one clean anew,
    whatever state it is in) or, when it cannot, is removed."""
    record, cut = folder / KEPT_RECORD, folder / CUT_RECORD
    tree = _taken_before(kept, path, record)
    if tree is None:
        undo_cut(kept.clone, path, cut)
        return
    if not (kept.size and kept.park(path, tree)):
        remove_worktree(kept.clone, path)
        kept.forget(tree)
    drop_planned_branch(kept.clone, cut)
    record.unlink(missing_ok=True)


def keep_for_its_work(kept: KeptWorktrees, folder: Path) -> None:
    """The job's worktree stays where it is, with its work, for a person: it never comes back."""
    kept.forget(KeptTree.read(folder / KEPT_RECORD))


def _taken_before(kept: KeptWorktrees, path: Path, record: Path) -> KeptTree | None:
    """The kept worktree an earlier attempt moved to `path` and died making clean, or None (its
    record goes when it names none there)."""
    tree = KeptTree.read(record)
    if tree is None:
        return None
    if path.is_dir() and kept.admin_of(path) == tree and kept.index_of(tree.name).is_file():
        return tree
    record.unlink(missing_ok=True)
    return None


def _made_clean(
    kept: KeptWorktrees, tree: KeptTree, path: Path, number: int, cut: Path, name: str = ""
) -> tuple[str, str] | None:
    """Make the taken worktree clean at the clone's HEAD on the job's branch; None when it
    cannot be proven clean (the caller removes it and cuts a new one)."""
    base = head_sha(kept.clone)
    index = kept.index_of(tree.name)
    with worktree_list_lock(kept.clone):
        reset_admin(tree.admin, path, base, index)
    drop_planned_branch(kept.clone, cut)  # an earlier attempt's, now that HEAD is detached
    problem = make_clean(path, base, index.stat().st_mtime_ns)
    if problem:
        activity.logger.warning(
            "The kept worktree %s could not be proven clean (%s): a new one is cut.", path, problem
        )
        return None
    branch, _ = branch_at(kept.clone, number, base, cut, name)
    replace_file(tree.admin / "HEAD", f"ref: refs/heads/{branch}\n")
    kept.save_index(tree)
    return branch, base
