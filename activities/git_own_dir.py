"""A clone's git directory must be its own: inside the clone, never elsewhere on the host.

A `.git` that is a symlink or a `gitdir:` file (`git clone --separate-git-dir`, a hand-made
link) puts the clone's objects, refs, hooks and config wherever it points: outside the shelf,
where none of the shelf's real-path checks reach, and where a job's worktrees would be
registered too. The shelf refuses such a clone before it is adopted, listed, cut from,
integrated into, reported on or pushed from, as the seed's shelf refuses "Git directories that
escape a clone" (and so does a git directory whose `commondir` leads out of it).
"""

from __future__ import annotations

from pathlib import Path

from desk.errors import GitDirEscapeError

GITDIR_PREFIX = "gitdir:"
MAX_GITDIR_FILE = 4096


def git_dir_escape(clone: Path) -> str:
    """Where the clone's git directory leads outside the clone, or "" when it is inside."""
    top = clone.resolve()
    dot_git = clone / ".git"
    if dot_git.is_symlink() or dot_git.is_dir():
        git_dir = dot_git.resolve()
    elif dot_git.is_file():
        with dot_git.open("rb") as handle:
            text = handle.read(MAX_GITDIR_FILE).decode("utf-8", "replace").strip()
        if not text.startswith(GITDIR_PREFIX):
            return f"{dot_git} is a file that names no git directory"
        git_dir = (clone / text.removeprefix(GITDIR_PREFIX).strip()).resolve()
    else:
        return ""
    if not git_dir.is_relative_to(top):
        return str(git_dir)
    common = git_dir / "commondir"
    if common.is_file() and not common.is_symlink():
        shared = (git_dir / common.read_text().strip()).resolve()
        if not shared.is_relative_to(top):
            return str(shared)
    return ""


def refuse_escaping_git_dir(repo: str, clone: Path) -> None:
    """Refuse the clone of `repo` when its git directory is outside it (`git_dir_escape`)."""
    escape = git_dir_escape(clone)
    if escape:
        raise GitDirEscapeError(
            f"The clone of {repo} at {clone} keeps its git directory outside the clone "
            f"({escape}), so codedesk does not work on it. Move that directory into the clone "
            f"as {clone / '.git'}, or move the clone away and add {repo} again with "
            f"`codedesk repo add {repo}`."
        )
