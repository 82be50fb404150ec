"""Where things live on the shelf, with real-path checks before a clone is touched."""

from __future__ import annotations

from pathlib import Path

from activities.git_own_dir import refuse_escaping_git_dir
from desk.config.settings import DeskSettings
from desk.errors import CloneMissingError, RepoNameError
from desk.repo_names import RepoName, parse_repo_name

WORKTREES_DIR = ".worktrees"
KEPT_DIR = ".kept"
"""Beside a clone's job worktrees: its idle ones, kept for later jobs (activities/git/kept.py)."""


def clone_path(settings: DeskSettings, repo: str | RepoName) -> Path:
    """`<shelf>/<owner>/<repo>`, refused if its real path leaves the shelf (a symlink, say)."""
    name = repo if isinstance(repo, RepoName) else parse_repo_name(repo)
    shelf = settings.shelf_dir.resolve()
    path = shelf / name.owner / name.name
    if not path.resolve().is_relative_to(shelf) or path.resolve().parent.parent != shelf:
        raise RepoNameError(
            f"The clone path of {str(name)!r} leaves the shelf {str(shelf)!r} (a symlink?); "
            "remove the link or pick another name."
        )
    return path


def existing_clone(settings: DeskSettings, repo: str) -> Path:
    """The clone of `repo` on the shelf; CloneMissingError when there is none, and
    GitDirEscapeError when its git directory is outside it."""
    path = clone_path(settings, repo)
    if not ((path / ".git").exists() or (path / ".git").is_symlink()):
        raise CloneMissingError(
            f"Repository {repo!r} is not on the shelf: add it with `codedesk repo add {repo}`."
        )
    refuse_escaping_git_dir(repo, path)
    return path


def worktree_path(settings: DeskSettings, repo: str, number: int) -> Path:
    """`<shelf>/.worktrees/<owner>/<repo>/<n>`."""
    name = parse_repo_name(repo)
    return settings.shelf_dir.resolve() / WORKTREES_DIR / name.owner / name.name / str(number)


def kept_worktrees_dir(settings: DeskSettings, repo: str) -> Path:
    """`<shelf>/.worktrees/<owner>/<repo>/.kept`: never a job's folder (a job's is a number)."""
    return worktree_path(settings, repo, 0).with_name(KEPT_DIR)


def job_dir(settings: DeskSettings, number: int) -> Path:
    """`<home>/jobs/<n>`: the agent log and the job's receipts."""
    return settings.jobs_dir / str(number)
