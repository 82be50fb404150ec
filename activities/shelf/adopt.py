"""Adopting a clone the owner already has: moved onto the shelf as it is, never cloned again.

A big repository's clone can take an hour; the owner often has one. Adoption moves that folder
to the shelf's place for the name (a rename: same filesystem, nothing copied), after checking
that it is a whole, clean clone whose origin codedesk would clone from, and never over an entry
the shelf already has. Whatever is refused is left where it was.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from activities.git.git_commands import porcelain_files, try_git
from activities.git_own_dir import git_dir_escape
from desk.errors import AdoptionError, CloneExistsError
from desk.repo_names import check_clone_source

UNFINISHED = (
    "MERGE_HEAD",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "BISECT_LOG",
    "rebase-merge",
    "rebase-apply",
)
"""Files a git operation in progress leaves in the git folder."""


def adoption_problem(folder: Path) -> str:
    """Why `folder` cannot be adopted as it is, or "" when it can."""
    if folder.is_symlink() or not folder.is_dir():
        return f"{folder} is not a folder."
    escape = git_dir_escape(folder)
    if escape:
        return (
            f"{folder} keeps its git directory outside the clone ({escape}): codedesk does not "
            "work on such a clone. Clone it instead: codedesk repo add OWNER/REPO --from URL."
        )
    git_folder = folder / ".git"
    if git_folder.is_symlink() or not git_folder.is_dir():
        return (
            f"{folder} is not a clone of its own: its .git is not a folder (a worktree or a "
            "submodule cannot be moved). Clone it instead: codedesk repo add OWNER/REPO --from URL."
        )
    ok, top = try_git(folder, "rev-parse", "--show-toplevel")
    if not ok or Path(top.strip()).resolve() != folder.resolve():
        return f"{folder} is not the top of a git work tree."
    ok, origin = try_git(folder, "remote", "get-url", "origin")
    if not ok or not origin.strip():
        return f"{folder} has no remote named origin: codedesk pushes and fetches there."
    unfinished = [name for name in UNFINISHED if (git_folder / name).exists()]
    if unfinished:
        return f"{folder} has a git operation in progress ({', '.join(unfinished)}): finish it."
    ok, listed = try_git(folder, "worktree", "list", "--porcelain")
    if ok and listed.count("worktree ") > 1:
        return f"{folder} has linked worktrees, which moving it would break: remove them first."
    dirty = porcelain_files(folder)
    if dirty:
        return f"{folder} has {len(dirty)} uncommitted change(s): commit or stash them first."
    return ""


def adopt_clone(folder: Path, target: Path) -> None:
    """Move the clone in `folder` to the shelf's `target`, or raise saying why not (nothing
    moved then)."""
    if target.exists():
        raise CloneExistsError(
            f"The shelf already has {target}: adopting never replaces a shelf entry. Use it as "
            "it is, or move that directory away first."
        )
    problem = adoption_problem(folder)
    if problem:
        raise AdoptionError(f"{problem} Nothing was moved.")
    ok, origin = try_git(folder, "remote", "get-url", "origin")
    check_clone_source(origin.strip())
    try:
        os.rename(folder, target)
    except OSError as error:
        if error.errno == errno.EXDEV:
            raise AdoptionError(
                f"{folder} is on another filesystem than the shelf ({target.parent}), so it "
                "cannot be moved without copying. Move it there yourself and adopt it from "
                "there, or clone it: codedesk repo add OWNER/REPO --from PATH. Nothing was moved."
            ) from None
        raise AdoptionError(f"{folder} could not be moved to {target}: {error.strerror}.") from None
