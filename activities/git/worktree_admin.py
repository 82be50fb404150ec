"""One change at a time to a clone's list of worktrees (`git worktree add`, `remove`, `prune`).

`git worktree add` makes `.git/worktrees/<id>/` first and writes its `locked` mark after; a
`git worktree prune` run by another job in between (a job releasing its worktree while the next
one cuts its own) removes the half-made entry, and the cut fails with "could not open
'.git/worktrees/<id>/locked'". Seen in a 200-job run through four slots and in the load bench.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from activities.git.git_commands import try_git

LOCK_NAME = "codedesk-worktrees.flock"
"""In the clone's git directory: held while codedesk adds, removes or prunes a worktree. It is
not a git lock (those end in `.lock`, and one left behind means a step died mid-way): this file
stays, and only the flock on it is held."""


@contextmanager
def worktree_list_lock(clone: Path) -> Iterator[None]:
    """Hold the clone's worktree-list lock (every worker process of this host shares it)."""
    with (clone / ".git" / LOCK_NAME).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def remove_worktree(clone: Path, path: Path) -> None:
    """Remove a job's worktree and its admin dir, whatever a killed git left of them.

    Forced twice: a `git worktree add` killed while it checked out a big tree leaves the
    worktree locked ("initializing"), which one --force keeps and `prune` never drops. A
    removal killed halfway leaves a folder git no longer calls a worktree (its `.git` file
    gone): the folder goes by hand, then git removes the entry whose folder is missing.
    """
    with worktree_list_lock(clone):
        removed, _ = try_git(clone, "worktree", "remove", "--force", "--force", str(path))
        if removed:
            return
        if path.exists():
            remove_tree(path)
            removed, _ = try_git(clone, "worktree", "remove", "--force", "--force", str(path))
            if removed:
                return
        try_git(clone, "worktree", "prune")


def remove_tree(path: Path) -> bool:
    """Remove the folder `path` and all it holds, whatever modes an agent gave the folders in
    it (one it made unreadable or unwritable, as its own user may); True when it is gone.

    Links are removed, never followed; the agent is dead by then, so nothing changes under the
    walk.
    """
    shutil.rmtree(path, ignore_errors=True)
    if not os.path.lexists(path):
        return True
    _open_folders(path)
    shutil.rmtree(path, ignore_errors=True)
    return not os.path.lexists(path)


def _open_folders(folder: Path) -> None:
    """Give the owner every right on `folder` and each real folder under it (links are left)."""
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode):
            return
        folder.chmod(stat.S_IRWXU)
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            _open_folders(Path(entry.path))
