"""A job's branch: a name no other ref blocks, cut into the job's worktree."""

from __future__ import annotations

from pathlib import Path

from activities.git import head_sha, lines, run_git, try_git
from activities.worktree_admin import worktree_list_lock
from desk.errors import GitError
from desk.names import job_branch_names

NAME_TRIES = 20
"""How many suffixes to try before giving up on finding a free branch name."""

REF_CLASHES = ("cannot lock ref", "already exists")
"""What `git worktree add -b` says when a ref appeared under the name meanwhile."""


def cut_worktree(clone: Path, path: Path, number: int) -> tuple[str, str]:
    """Add a worktree at `path` on a new branch at the clone's HEAD; return the branch's name
    and the commit it was cut at.

    The name is the first of `job_branch_names` that no ref blocks: not an existing branch,
    not a directory of branches (`worker/5/x` blocks `worker/5`), not under a branch (`worker`
    blocks `worker/5`). A ref that appears between the look and the cut (an agent of another
    job) moves on to the next name.
    """
    base, taken = _head_and_branches(clone)
    for branch in job_branch_names(number, NAME_TRIES):
        if not _free(branch, taken):
            continue
        with worktree_list_lock(clone):
            ok, detail = try_git(clone, "worktree", "add", "--quiet", "-b", branch, str(path), base)
        if ok:
            return branch, base
        if path.exists() or not any(clash in detail for clash in REF_CLASHES):
            raise GitError(detail)
        taken = _branches(clone)
    raise GitError(
        f"No free branch name for job {number} in {clone}: worker/{number}, worker-{number} "
        f"and their suffixes up to -{NAME_TRIES - 1} are taken or blocked by other refs. "
        "Delete old worker branches (git branch -D)."
    )


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
