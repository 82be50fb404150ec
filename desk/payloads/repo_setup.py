"""A repository's worktree set-up and check, set by the owner and kept in its `Repo` entity."""

from __future__ import annotations

from pathlib import PurePosixPath

from pydantic import Field

from desk.errors import SetupError
from desk.payloads.base import Payload


class RepoSetup(Payload):
    """Host policy: never read from the repository's own files.

    `copy` names files of the clone (relative to its top) copied into each new worktree and
    kept out of git; `setup` runs in the worktree before the agent, `check` after it.
    """

    setup: str = ""
    copy_files: list[str] = Field(default_factory=list)
    check: str = ""
    check_blocks: bool = True
    """Whether a failed or timed-out check keeps the work from being integrated."""

    def empty(self) -> bool:
        return not (self.setup or self.copy_files or self.check)


class SetRepoSetup(Payload):
    """The owner's change: fields left None keep their value; `clear` empties all first."""

    repo: str
    setup: str | None = None
    copy_files: list[str] | None = None
    check: str | None = None
    check_blocks: bool | None = None
    clear: bool = False

    def applied_to(self, current: RepoSetup) -> RepoSetup:
        """The set-up after this change, its copied paths checked (`SetupError` if bad)."""
        base = RepoSetup() if self.clear else current
        copied = base.copy_files if self.copy_files is None else self.copy_files
        return RepoSetup(
            setup=base.setup if self.setup is None else self.setup.strip(),
            copy_files=[copy_path(path) for path in copied],
            check=base.check if self.check is None else self.check.strip(),
            check_blocks=base.check_blocks if self.check_blocks is None else self.check_blocks,
        )


def copy_path(path: str) -> str:
    """`path` as a clean path inside the clone, or `SetupError` when it could escape it."""
    pure = PurePosixPath(path)
    if not path or pure.is_absolute() or ".." in pure.parts or pure.parts[:1] == (".git",):
        raise SetupError(
            f"Cannot copy {path!r} into worktrees: name a file inside the clone, relative to "
            "its top, without '..' and outside .git (for example `--copy .env`)."
        )
    return str(pure)
