"""Copy the owner's named files from the clone into a new worktree and keep them out of git.

Safe to run twice (a retried attempt copies again and adds no second exclude line). Refuses,
copying nothing, a path that escapes the clone, passes through a symlink (in the clone or in
the worktree) or names no regular file.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

from activities.git.git_commands import run_git
from desk.errors import SetupError
from desk.records.repo_setup import copy_path

EXCLUDE_MARK = "# codedesk: the repository's set-up files"


def copy_setup_files(clone: Path, worktree: Path, paths: list[str]) -> list[str]:
    """Copy each of `paths` from `clone` to `worktree`; returns the paths copied."""
    checked = [_checked(clone, worktree, copy_path(path)) for path in paths]
    for source, target in checked:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    exclude_from_git(worktree, [copy_path(path) for path in paths])
    return [copy_path(path) for path in paths]


def exclude_from_git(worktree: Path, paths: list[str]) -> None:
    """Add `paths` (anchored at the top) to the worktree's info/exclude, once each."""
    if not paths:
        return
    exclude = Path(run_git(worktree, "rev-parse", "--git-path", "info/exclude").strip())
    if not exclude.is_absolute():
        exclude = worktree / exclude
    exclude.parent.mkdir(parents=True, exist_ok=True)
    have = exclude.read_text().splitlines() if exclude.is_file() else []
    wanted = [f"/{path}" for path in paths if f"/{path}" not in have]
    if wanted:
        head = [EXCLUDE_MARK] if EXCLUDE_MARK not in have else []
        text = "\n".join([*have, *head, *wanted]) + "\n"
        exclude.write_text(text)


def _checked(clone: Path, worktree: Path, path: str) -> tuple[Path, Path]:
    """The source and target of `path`, or `SetupError` saying why it cannot be copied."""
    source = clone / path
    for part in [*reversed(source.parents[: len(Path(path).parts) - 1]), source]:
        if part.is_symlink():
            raise SetupError(
                f"Cannot copy {path!r} into worktrees: {part.relative_to(clone)} is a symlink "
                "in the clone. Name the real file, or remove it with `codedesk repo set "
                "--clear`."
            )
    if not source.exists():
        raise SetupError(
            f"Cannot copy {path!r} into worktrees: the clone has no such file. Put it in the "
            "clone on the shelf, or change the repository's set-up with `codedesk repo set`."
        )
    if not stat.S_ISREG(source.lstat().st_mode):
        raise SetupError(
            f"Cannot copy {path!r} into worktrees: it is not a regular file in the clone "
            "(a directory or a special file). Name each file to copy."
        )
    target = worktree / path
    for part in [*reversed(target.parents[: len(Path(path).parts) - 1]), target]:
        if part.is_symlink():
            raise SetupError(
                f"Cannot copy {path!r} into worktrees: {part.relative_to(worktree)} is a "
                "symlink in the worktree, so the copy could land outside it."
            )
    return source, target
