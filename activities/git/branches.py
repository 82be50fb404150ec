"""A job's branch: a name no other ref blocks, cut into a new worktree or made for a kept one."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from activities.git.git_commands import head_sha, lines, run_git, try_git
from activities.git.worktree_admin import remove_worktree, worktree_list_lock
from desk.errors import GitError
from desk.names import job_branch_names

CUT_RECORD = "worktree-cut.json"
"""In the job's folder: the branch and commit a cut is about to make, written before `git
worktree add` starts, so a retry of a cut killed halfway knows which branch is its own."""

NAME_TRIES = 20
"""How many suffixes to try before giving up on finding a free branch name."""

REF_CLASHES = ("cannot lock ref", "already exists")
"""What `git worktree add -b` says when a ref appeared under the name meanwhile."""


def cut_worktree(
    clone: Path, path: Path, number: int, record: Path | None = None, name: str = ""
) -> tuple[str, str]:
    """Add a worktree at `path` on a new branch at the clone's HEAD; return the branch's name
    and the commit it was cut at.

    The name is the first of `job_branch_names` that no ref blocks: not an existing branch,
    not a directory of branches (`worker/5/x` blocks `worker/5`), not under a branch (`worker`
    blocks `worker/5`). A ref that appears between the look and the cut (an agent of another
    job) moves on to the next name. Each try is noted in `record` before git starts it.
    """

    def cut(branch: str, base: str) -> tuple[bool, str]:
        with worktree_list_lock(clone):
            ok, detail = try_git(clone, "worktree", "add", "--quiet", "-b", branch, str(path), base)
        if not ok and path.exists():
            raise GitError(detail)
        return ok, detail

    return _on_a_free_name(clone, number, record, cut, name=name)


def branch_at(
    clone: Path, number: int, base: str, record: Path | None = None, name: str = ""
) -> tuple[str, str]:
    """Make the job's branch at `base`, named as `cut_worktree` names it, for a worktree that is
    already there (a kept one, checked out at `base`); return its name and `base`."""

    def make(branch: str, at: str) -> tuple[bool, str]:
        return try_git(clone, "branch", "--quiet", "--no-track", branch, at)

    return _on_a_free_name(clone, number, record, make, base, name)


def _on_a_free_name(
    clone: Path,
    number: int,
    record: Path | None,
    make: Callable[[str, str], tuple[bool, str]],
    at: str = "",
    name: str = "",
) -> tuple[str, str]:
    """`make(branch, base)` on the first free name of the job, at `at` or else the clone's
    HEAD, noted in `record` before each try; a try a ref taken meanwhile refused moves on."""
    base, taken = _head_and_branches(clone)
    base = at or base
    for branch in job_branch_names(number, NAME_TRIES, name):
        if not _free(branch, taken):
            continue
        if record is not None:
            record.write_text(json.dumps({"branch": branch, "base": base}))
        ok, detail = make(branch, base)
        if ok:
            return branch, base
        if not any(clash in detail for clash in REF_CLASHES):
            raise GitError(detail)
        taken = _branches(clone)
    raise GitError(
        f"No free branch name for job {number} in {clone}: worker/{number}, worker-{number} "
        f"and their suffixes up to -{NAME_TRIES - 1} are taken or blocked by other refs. "
        "Delete old worker branches (git branch -D)."
    )


def undo_cut(clone: Path, path: Path, record: Path) -> None:
    """Remove what a cut that died before its receipt made: the worktree at `path` (half
    checked out and locked, when git was killed inside `worktree add`) and its branch, which
    holds nothing yet (no agent ran). A retry then cuts the same name again.

    The branch is the one `record` names, deleted only while it is still at the commit it was
    cut at; a cut from before records were kept is asked of the worktree itself.
    """
    try:
        planned = json.loads(record.read_text())
        branch, base = str(planned["branch"]), str(planned["base"])
    except (OSError, ValueError, KeyError, TypeError):
        branch = base = ""
        if path.is_dir():
            ok, found = try_git(path, "symbolic-ref", "--quiet", "--short", "HEAD")
            branch = found.strip() if ok else ""
    remove_worktree(clone, path)
    _drop_unused(clone, branch, base)
    record.unlink(missing_ok=True)


def drop_planned_branch(clone: Path, record: Path) -> None:
    """Delete the branch `record` names while it is still at the commit it was made at (no
    agent ran on it), and the record: what a branch made for a kept worktree leaves when its
    step dies before the receipt. The worktree must not have it checked out any more."""
    try:
        planned = json.loads(record.read_text())
        branch, base = str(planned["branch"]), str(planned["base"])
    except (OSError, ValueError, KeyError, TypeError):
        return
    _drop_unused(clone, branch, base)
    record.unlink(missing_ok=True)


def _drop_unused(clone: Path, branch: str, base: str) -> None:
    if branch:
        ok, tip = try_git(clone, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}")
        if ok and (tip.strip() == base or not base):
            # -d, not -D: a branch that somehow holds unmerged commits is kept.
            try_git(clone, "branch", "--quiet", "-d", branch)


def _head_and_branches(clone: Path) -> tuple[str, set[str]]:
    """The clone's HEAD commit and its branches' ref names, asked of one git process."""
    _, listed = try_git(clone, "show-ref", "--head", "--heads")
    refs = [line.split(" ", 1) for line in lines(listed) if " " in line]
    head = [sha for sha, name in refs if name == "HEAD"]
    if not head:  # an unborn HEAD: rev-parse says so in git's own words
        return head_sha(clone), _branches(clone)
    return head[0], {name for _, name in refs if name.startswith("refs/heads/")}


def _branches(clone: Path) -> set[str]:
    return set(lines(run_git(clone, "for-each-ref", "--format=%(refname)", "refs/heads/")))


def _free(branch: str, taken: set[str]) -> bool:
    """No ref is `branch`, lies under it, or is a directory it would lie under."""
    ref = f"refs/heads/{branch}"
    return not any(
        other == ref or other.startswith(f"{ref}/") or ref.startswith(f"{other}/")
        for other in taken
    )
