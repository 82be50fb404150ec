"""A clone's kept worktrees: idle ones a later job takes instead of checking out every file.

`<shelf>/.worktrees/<owner>/<repo>/.kept/` holds, for each idle worktree, its folder (named as
its admin dir, `.git/worktrees/<name>`) and `<name>.index`: a copy of the index git wrote when
that worktree was last made clean, which `activities/git/clean_worktree.py` puts back before it
trusts any file. The shelf is hidden from every agent, so no agent reaches these copies; a
worktree in use keeps its copy here too.

A job takes an idle worktree by moving its folder to the job's own path
(`.worktrees/<owner>/<repo>/<n>`), and hands it back by moving it here with its HEAD detached
(its branch can then go); both under the clone's worktree-list lock, so that no `git worktree
prune` sees a pointer half rewritten and two jobs never take the same one. An idle worktree
whose pointers do not name each other (a move killed halfway, a clone made again since) is set
aside and removed, never taken.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

from activities.git.clean_worktree import point_at, replace_file
from activities.git.git_commands import try_git
from activities.git.worktree_admin import remove_tree, worktree_list_lock

INDEX_SUFFIX = ".index"
SET_ASIDE = ".gone-"
"""The prefix of an idle worktree's folder set aside to be removed outside the lock."""
STAGED = ".new-"
"""The prefix of an index copy being written."""


@dataclass(frozen=True)
class KeptTree:
    """A worktree that may be kept: its name in the pool (its admin dir's) and its admin dir."""

    name: str
    admin: Path

    def as_json(self) -> str:
        return json.dumps({"name": self.name, "admin": str(self.admin)})

    @classmethod
    def read(cls, record: Path) -> KeptTree | None:
        """The worktree a job's record names, or None when there is no readable record."""
        try:
            found = json.loads(record.read_text())
            return cls(str(found["name"]), Path(str(found["admin"])))
        except (OSError, ValueError, KeyError, TypeError):
            return None


@dataclass(frozen=True)
class KeptWorktrees:
    """The idle worktrees of `clone`, in `folder`, at most `size` of them."""

    clone: Path
    folder: Path
    size: int

    def index_of(self, name: str) -> Path:
        return self.folder / f"{name}{INDEX_SUFFIX}"

    def admin_of(self, worktree: Path) -> KeptTree | None:
        """The pool's view of the worktree at `worktree` (just cut, no agent yet): its admin
        dir from its `.git` file, when that is one of the clone's."""
        try:
            pointer = (worktree / ".git").read_text().strip()
        except (OSError, UnicodeDecodeError):
            return None
        admin = Path(pointer.removeprefix("gitdir: "))
        return KeptTree(admin.name, admin) if self._ours(admin) else None

    def take(self, path: Path, record: Path) -> KeptTree | None:
        """Move an idle worktree to `path` for a job, noted in `record` first; None when none
        is idle. With a size of 0, every idle worktree is removed instead."""
        set_aside: list[Path] = []
        taken = None
        self.folder.mkdir(parents=True, exist_ok=True)
        with worktree_list_lock(self.clone):
            for slot in self._idle():
                kept = self._valid(slot) if self.size else None
                if kept is None:
                    set_aside.append(self._set_aside(slot))
                    continue
                record.write_text(kept.as_json())
                os.rename(slot, path)
                point_at(kept.admin, path)
                taken = kept
                break
            self._drop_stray_indexes()
        self._remove_set_aside(set_aside)
        return taken

    def park(self, path: Path, kept: KeptTree) -> bool:
        """Move the job's worktree at `path` into the pool, its HEAD detached at the commit it
        names and its pointers rewritten (whatever its `.git` holds now); False (nothing
        changed) when the pool is full or `kept` is no worktree of the clone's: the caller
        removes it then."""
        with worktree_list_lock(self.clone):
            if len(self._idle()) >= self.size or not self.index_of(kept.name).is_file():
                return False
            if not self._ours(kept.admin) or (self.folder / kept.name).exists():
                return False
            commit = self._head_commit(kept.admin)
            if not commit:
                return False
            replace_file(kept.admin / "HEAD", f"{commit}\n")
            slot = self.folder / kept.name
            os.rename(path, slot)
            point_at(kept.admin, slot)
            return True

    def save_index(self, kept: KeptTree) -> None:
        """Copy the index git just wrote (the worktree clean, no agent yet), with its time;
        under the lock, so that a take's sweep of stray copies never meets one half made."""
        self.folder.mkdir(parents=True, exist_ok=True)
        staged = self.folder / f"{STAGED}{kept.name}{INDEX_SUFFIX}"
        with worktree_list_lock(self.clone):
            shutil.copy2(kept.admin / "index", staged)
            os.replace(staged, self.index_of(kept.name))

    def forget(self, kept: KeptTree | None) -> None:
        """The worktree will not come back (kept for its work, or removed): its copy goes."""
        if kept is not None:
            self.index_of(kept.name).unlink(missing_ok=True)

    def _ours(self, admin: Path) -> bool:
        """Whether `admin` is one of the clone's worktree admin dirs (a real folder)."""
        return admin.parent == self.clone / ".git" / "worktrees" and (
            admin.is_dir() and not admin.is_symlink()
        )

    def _idle(self) -> list[Path]:
        try:
            entries = list(os.scandir(self.folder))
        except FileNotFoundError:
            return []
        return sorted(
            Path(entry.path)
            for entry in entries
            if entry.is_dir(follow_symlinks=False) and not entry.name.startswith(".")
        )

    def _valid(self, slot: Path) -> KeptTree | None:
        """The idle worktree at `slot`, when it and its admin dir name each other and its
        index copy is there."""
        kept = self.admin_of(slot)
        if kept is None or kept.name != slot.name:
            return None
        try:
            named = (kept.admin / "gitdir").read_text().strip()
        except (OSError, UnicodeDecodeError):
            return None
        if named != str(slot / ".git") or not self.index_of(kept.name).is_file():
            return None
        return kept

    def _head_commit(self, admin: Path) -> str:
        """The commit the worktree's HEAD names (a branch's tip, or itself detached), or ""."""
        try:
            head = (admin / "HEAD").read_text().strip()
        except (OSError, UnicodeDecodeError):
            return ""
        ref = head.removeprefix("ref: ") if head.startswith("ref: refs/heads/") else head
        ok, commit = try_git(self.clone, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        return commit.strip() if ok else ""

    def _set_aside(self, slot: Path) -> Path:
        aside = self.folder / f"{SET_ASIDE}{uuid.uuid4().hex[:12]}"
        os.rename(slot, aside)
        return aside

    def _remove_set_aside(self, set_aside: list[Path]) -> None:
        """Remove the folders set aside now and any a killed step set aside before; then the
        admin dirs left without a worktree go (outside the lock: a big folder takes seconds)."""
        earlier = [
            Path(entry.path)
            for entry in os.scandir(self.folder)
            if entry.name.startswith(SET_ASIDE) and Path(entry.path) not in set_aside
        ]
        for folder in [*set_aside, *earlier]:
            remove_tree(folder)
        if set_aside or earlier:
            with worktree_list_lock(self.clone):
                try_git(self.clone, "worktree", "prune")

    def _drop_stray_indexes(self) -> None:
        """Index copies whose worktree is gone (its admin dir removed) go, and any a killed
        step left half made."""
        worktrees = self.clone / ".git" / "worktrees"
        for entry in os.scandir(self.folder):
            name = entry.name.removesuffix(INDEX_SUFFIX)
            stray = entry.name.startswith(STAGED) or not (worktrees / name).is_dir()
            if entry.name.endswith(INDEX_SUFFIX) and stray:
                Path(entry.path).unlink(missing_ok=True)
