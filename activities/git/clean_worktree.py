"""A kept worktree made what a fresh cut at a commit would be, or the reason it cannot be proven.

An earlier job's agent is untrusted: it may have left untracked and ignored files, nested
repositories, links where folders were, files hidden from `git status` by its own index
(`--skip-worktree`, `--assume-unchanged`, a sparse checkout), anything in the worktree's admin
dir (`.git/worktrees/<id>`: HEAD, index, `config.worktree`, refs and logs of its own), odd modes
or extended attributes on folders. None of that is asked of the worktree; it is overwritten:

1. the admin dir keeps only `commondir` and `gitdir`, both rewritten; HEAD is set to the commit
   and the index is the host's copy of the one git wrote when the worktree was last made
   clean (kept where no agent reaches, activities/git/kept.py), so git judges every file by
   the stat data it recorded itself, ctime included, which no process can set back;
2. every entry of the worktree that the index does not track is removed (links never
   followed), and so is every tracked file whose mode, owner, extended attributes or link
   count are not a fresh checkout's (git compares none of those when the content is the
   same); every folder that holds tracked files must be a real folder of this user with the
   mode a new folder gets here and no user or ACL attribute, else the worktree is not clean
   and is rebuilt;
3. `git read-tree -u --reset <commit>` (what `reset --hard` does, without its ORIG_HEAD), with
   the settings that make git look at every file: it writes the files the commit changes and
   every file whose stat data differs from the index's.

Git compares whole seconds of a file's times, and the content of a file written in the second
it wrote the index ("racily clean"): a change is found either way, since an agent runs after
that index is written.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

from activities.git.git_commands import SAFE_CONFIG, git_env, run_git
from activities.git.worktree_admin import remove_tree
from desk.errors import GitBusyError, GitError

STRICT_CONFIG = (
    "-c", "core.trustctime=true",
    "-c", "core.checkStat=default",
    "-c", "core.ignoreStat=false",
    "-c", "core.sparseCheckout=false",
    "-c", "core.sparseCheckoutCone=false",
    "-c", "index.sparse=false",
    "-c", "core.splitIndex=false",
    "-c", "core.untrackedCache=false",
    "-c", "submodule.recurse=false",
)  # fmt: skip
"""What host-side git runs with on a kept worktree: every file looked at by its full stat data,
the whole tree checked out, nothing cached beside the index, no submodule entered."""

ADMIN_POINTERS = ("commondir", "gitdir")
GITLINK_MODE = "160000"
SYMLINK_MODE = "120000"
FILE_MODE = "100644"
EXECUTABLE_MODE = "100755"
SETTLED_NS = 1_000_000_000
"""A file whose ctime is older than the index copy by this much (ns) is as git left it: the
margin covers clocks whose timestamps are coarser than they look."""
PLAIN_ATTRIBUTES = ("user.", "system.posix_acl")
"""Extended attributes an unprivileged agent can set on its folders (a default ACL would give
later files other modes)."""


def strict_git(worktree: Path, *args: str) -> str:
    """`git <args>` in a kept worktree, with the settings that make git look at every file."""
    return run_git(worktree, *STRICT_CONFIG, *args)


def point_at(admin: Path, worktree: Path) -> None:
    """Make the admin dir and the worktree's `.git` file name each other (the worktree moved)."""
    replace_file(admin / "gitdir", f"{worktree / '.git'}\n")
    replace_file(worktree / ".git", f"gitdir: {admin}\n")


def reset_admin(admin: Path, worktree: Path, commit: str, index: Path) -> None:
    """Leave in the admin dir only its pointers (rewritten), HEAD at `commit` (detached) and a
    copy of `index` that keeps the copy's time (git's racy-file check reads it)."""
    for entry in os.scandir(admin):
        if entry.name not in ADMIN_POINTERS or not entry.is_file(follow_symlinks=False):
            remove_entry(Path(entry.path))
    replace_file(admin / "commondir", "../..\n")
    replace_file(admin / "HEAD", f"{commit}\n")
    staged = admin / ".index.codedesk-new"
    shutil.copy2(index, staged)
    os.replace(staged, admin / "index")
    point_at(admin, worktree)


def make_clean(worktree: Path, commit: str, since: int) -> str:
    """Sweep the worktree and check out `commit` (its admin dir already reset, its index the
    copy written at `since`, in ns); returns "" when it is proven clean, else why not (the
    caller rebuilds it)."""
    try:
        sweep = _Sweep(worktree, _tracked(worktree), _new_folder_mode(), since - SETTLED_NS)
        problem = sweep.run()
        if problem:
            return problem
        strict_git(worktree, "read-tree", "-u", "--reset", commit)
    except GitBusyError:
        raise
    except GitError as error:
        return str(error)
    return ""


def _tracked(worktree: Path) -> dict[str, str]:
    """Every path the index tracks, with its mode (as the file system spells the path)."""
    done = subprocess.run(
        ["git", *SAFE_CONFIG, *STRICT_CONFIG, "ls-files", "--stage", "-z"],
        cwd=worktree,
        env=git_env(),
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise GitError(f"git ls-files failed in {worktree}: {done.stderr.decode(errors='replace')}")
    tracked = {}
    for record in done.stdout.split(b"\0"):
        if record:
            meta, path = record.split(b"\t", 1)
            tracked[os.fsdecode(path)] = meta.split(b" ", 1)[0].decode()
    return tracked


class _Sweep:
    """One walk of a worktree: what the index does not track goes, what it tracks is looked at."""

    def __init__(self, worktree: Path, tracked: dict[str, str], mode: int, since: int) -> None:
        self.worktree, self.tracked, self.folder_mode, self.since = worktree, tracked, mode, since
        self.folders = {""}
        for path in tracked:
            parts = path.split("/")[:-1]
            self.folders.update("/".join(parts[: depth + 1]) for depth in range(len(parts)))
        self.file_modes = {
            FILE_MODE: stat.S_IFREG | (0o666 & mode),
            EXECUTABLE_MODE: stat.S_IFREG | (0o777 & mode),
        }
        self.uid = os.getuid()

    def run(self) -> str:
        """Why the worktree is not clean, or "" once the walk is done."""
        pending = [""]
        try:
            problem = self._folder_problem("")
            while pending and not problem:
                relative = pending.pop()
                for entry in _entries(self.worktree / relative):
                    path = f"{relative}/{entry.name}" if relative else entry.name
                    problem = problem or self._swept(entry, path, pending)
        except OSError as error:
            return f"{error.filename or self.worktree}: {error.strerror or error}"
        return problem

    def _swept(self, entry: os.DirEntry[str], path: str, pending: list[str]) -> str:
        """Keep, look into or remove one entry of the worktree; why it is not clean, or ""."""
        if path == ".git":
            return ""  # the worktree's pointer, written by the host just before
        real_folder = entry.is_dir(follow_symlinks=False)
        mode = self.tracked.get(path, GITLINK_MODE)
        if real_folder and path in self.folders:
            pending.append(path)
            return self._folder_problem(path)
        if real_folder and path in self.tracked and mode == GITLINK_MODE:
            for inside in _entries(Path(entry.path)):  # a submodule's: codedesk never fills one
                remove_entry(Path(inside.path))
            if _entries(Path(entry.path)):
                return f"{path} (a submodule's folder) could not be emptied"
            return self._folder_problem(path)
        if not real_folder and mode != GITLINK_MODE:
            if self._file_problem(entry, mode):
                remove_entry(Path(entry.path))  # git writes it anew
            return ""  # git's checkout judges the content of the rest
        remove_entry(Path(entry.path))
        return f"{path} could not be removed" if os.path.lexists(entry.path) else ""

    def _file_problem(self, entry: os.DirEntry[str], tracked_mode: str) -> bool:
        """Whether a tracked file or link changed since the index was written in what git does
        not compare when its content is the same: its mode beyond the executable bit, its
        owner, its extended attributes, another name for it (a hard link). Git compares whole
        seconds of a file's times: a change in the second git wrote the file may leave them
        as git recorded them. Every such change moves the file's ctime, so a file whose ctime
        is older than the index (by a margin) is as git left it."""
        info = entry.stat(follow_symlinks=False)
        if info.st_ctime_ns < self.since:
            return False
        if info.st_uid != self.uid or info.st_nlink != 1:
            return True
        if tracked_mode == SYMLINK_MODE:
            return not stat.S_ISLNK(info.st_mode)
        if info.st_mode != self.file_modes.get(tracked_mode):
            return True
        return _marked(entry.path)

    def _folder_problem(self, path: str) -> str:
        """Why the folder at `path` is not as a fresh checkout makes one, or ""."""
        folder = self.worktree / path
        info = folder.lstat()
        shown = path or "the worktree's top folder"
        if info.st_uid != self.uid:
            return f"{shown} belongs to user {info.st_uid}"
        if stat.S_IMODE(info.st_mode) != self.folder_mode:
            return f"{shown} has mode {stat.S_IMODE(info.st_mode):o}, not {self.folder_mode:o}"
        if _marked(str(folder)):
            return f"{shown} has extended attributes an agent set"
        return ""


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as listing:
        return list(listing)


def _marked(path: str) -> bool:
    """Whether `path` has a user or ACL extended attribute (never followed if it is a link)."""
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return False  # a file system without extended attributes
    return any(name.startswith(PLAIN_ATTRIBUTES) for name in names)


def _new_folder_mode() -> int:
    """The mode git gives a folder it makes here: 0777 less this process's umask."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return 0o777 & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o755


def remove_entry(path: Path) -> None:
    """Remove a file, a link or a whole folder; nothing there is fine."""
    if path.is_dir() and not path.is_symlink():
        remove_tree(path)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            remove_tree(path)


def replace_file(path: Path, text: str) -> None:
    """Put `text` at `path` in one step (a link or a folder there is replaced, not followed)."""
    if path.is_dir() and not path.is_symlink():
        remove_tree(path)
    staged = path.with_name(f".{path.name}.codedesk-new")
    remove_entry(staged)
    staged.write_text(text)
    os.replace(staged, path)
