"""Finishing a clone's fast-forward that a killed attempt left halfway, or telling it from edits.

`git merge --ff-only` on a big clone writes thousands of files, then the index, then the branch:
killed in between (a SIGKILLed worker and its git), it leaves HEAD at the old commit, a mix of
old and new files and a stale `index.lock`. Such a clone looks dirty, and an integration would
refuse it (and every later job and push of the repository with it). The merge plan names both
ends (`onto`, `tip`), so a retry can look at every changed path: when each one (its index entry
and its file) is as `onto` or as `tip` has it, the mix is the fast-forward's own and is finished;
when any is neither, someone else changed the clone too, and nothing is touched.
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from activities.git.git_commands import SAFE_CONFIG, git_env, run_git
from activities.git_locks import left_behind, remove_stale_lock
from desk.errors import GitBusyError, GitError

State = tuple[str, str] | None
"""A path's (mode, object id) in a tree, the index or the working tree; None where it is absent."""

ABSENT_MODE = "000000"
FILE_MODES = ("100644", "100755")
HASH = "hash"
"""In place of a file's state: status did not say, its content must be hashed."""
UNKNOWN = "unknown"
"""In place of a file's state: it could not be hashed (a fifo, a name with a newline)."""
MAX_CUT_FILES = 16
"""How many files a killed checkout may have left half written: git writes one at a time in
each of its checkout workers (`checkout.workers`, one by default), removing the old file first.
More such files than this are someone's edits."""


@dataclass(frozen=True)
class Resumed:
    """What a retry found of its fast-forward: finished now, or refused with the reason why."""

    refusal: str = ""


@dataclass(frozen=True)
class _Entry:
    """One path `git status` names: its index entry and its file, as far as status tells them."""

    path: str
    index: State
    file: State | str
    """The file's state, or HASH when only its content can tell (status does not hash it)."""
    foreign: bool = False
    """Something a fast-forward never leaves: a conflict, a rename, a submodule's change."""


def finish_fast_forward(clone: Path, onto: str, tip: str, max_files: int) -> Resumed | None:
    """Finish the fast-forward of `clone` from `onto` to `tip` an earlier attempt began.

    Returns None when there is none of it to finish (the clone is not at `onto` on a branch, or
    shows no change the fast-forward made): the caller goes on as if none had begun. Returns
    `Resumed()` once the clone is at `tip`, clean; `Resumed(refusal)` when files were changed by
    someone else as well, and the clone is left exactly as it was found.
    """
    head, branch, entries = _status(clone)
    if head != onto or not branch or not entries:
        return None
    lock = clone / ".git" / "index.lock"
    if lock.exists() and not left_behind(lock):
        # A git at work (the dead worker's own, living on): it finishes before anything here.
        raise GitBusyError(
            f"A git holds the index.lock of the clone {clone}: the integration is retried soon."
        )
    ours, foreign = _classify(clone, entries, _sides(clone, onto, tip))
    if not ours:
        return None  # no trace of the fast-forward: whatever changed, the caller refuses it
    if foreign:
        shown = ", ".join(foreign[:max_files])
        unlock = "remove .git/index.lock (the killed git's), " if lock.exists() else ""
        return Resumed(
            refusal=(
                f"The clone {clone} is part way through codedesk's fast-forward from "
                f"{onto[:12]} to {tip[:12]} (its worker died), and {len(foreign)} file(s) were "
                f"changed by someone else too ({shown}); nothing more was done. Save those "
                f"changes elsewhere, {unlock}run `git reset --hard {onto[:12]}` in the clone "
                "to undo the rest, and start the job again."
            )
        )
    remove_stale_lock(lock)
    # Every changed path is as `onto` or `tip` has it: setting the index and files to `tip`
    # loses nothing of anyone's, and moves the branch only after them, as the merge would.
    run_git(clone, "reset", "--hard", "--quiet", tip)
    return Resumed()


def _classify(
    clone: Path, entries: list[_Entry], sides: dict[str, tuple[State, State]]
) -> tuple[list[str], list[str]]:
    """The changed paths the fast-forward made (as the tip has them, or the ones git was
    writing when it died) and those someone else changed (as neither end has them)."""
    hashes = _hashes(clone, [entry.path for entry in entries if entry.file == HASH])
    ours, foreign, cut = [], [], []
    for entry in entries:
        file = hashes.get(entry.path, UNKNOWN) if entry.file == HASH else entry.file
        before, after = sides.get(entry.path, (None, None))
        if entry.foreign or entry.path not in sides or entry.index not in (before, after):
            foreign.append(entry.path)
        elif _same_file(file, (after,)) or (entry.index == after and _same_file(file, (before,))):
            ours.append(entry.path)
        elif _same_file(file, (before,)):
            continue  # not reached yet: as it was
        elif after is not None and after[0] in FILE_MODES and file != UNKNOWN:
            cut.append((entry.path, after[1]))
        else:
            foreign.append(entry.path)
    half_written = [path for path, oid in cut[: MAX_CUT_FILES + 1] if _cut_write(clone, path, oid)]
    if len(half_written) > MAX_CUT_FILES:
        half_written = []
    ours.extend(half_written)
    foreign.extend(path for path, _ in cut if path not in half_written)
    return ours, foreign


def _cut_write(clone: Path, path: str, oid: str) -> bool:
    """Whether `path` is the file git was writing when it was killed: gone (git removes the
    old file before it writes the new one) or the start of the tip's content."""
    try:
        written = (clone / path).read_bytes()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    done = subprocess.run(
        ["git", *SAFE_CONFIG, "cat-file", "--filters", f"--path={path}", oid],
        cwd=clone,
        env=git_env(),
        capture_output=True,
        check=False,
    )
    return done.returncode == 0 and done.stdout.startswith(written)


def _status(clone: Path) -> tuple[str, str, list[_Entry]]:
    """HEAD, its branch and every changed path, with the object ids status knows."""
    out = run_git(
        clone,
        "status",
        "--porcelain=v2",
        "-z",
        "--branch",
        "--untracked-files=all",
        "--no-renames",
        "--ignore-submodules=none",
    )
    head = branch = ""
    entries = []
    for record in out.split("\0"):
        if record.startswith("# branch.oid "):
            head = record.removeprefix("# branch.oid ").removeprefix("(initial)")
        elif record.startswith("# branch.head "):
            branch = record.removeprefix("# branch.head ").removeprefix("(detached)")
        elif record.startswith("1 "):
            entries.append(_changed(record))
        elif record.startswith("? "):
            entries.append(_Entry(record[2:], None, "hash"))
        elif record[:2] in ("2 ", "u "):
            entries.append(_Entry(record.rsplit(" ", 1)[-1], None, None, foreign=True))
    return head, branch, entries


def _changed(record: str) -> _Entry:
    """`1 XY sub mH mI mW hH hI path`: the index entry is (mI, hI); the file is the index's
    when Y is '.', absent when 'D', and only its content can tell otherwise."""
    _, xy, sub, _, mode_index, _, _, oid_index, path = record.split(" ", 8)
    index = None if mode_index == ABSENT_MODE else (mode_index, oid_index)
    file: State | str = {".": index, "D": None}.get(xy[1], HASH)
    return _Entry(path, index, file, foreign=sub != "N...")


def _sides(clone: Path, onto: str, tip: str) -> dict[str, tuple[State, State]]:
    """Every path `onto..tip` changes: its state in `onto` and in `tip`."""
    out = run_git(clone, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", onto, tip)
    fields = out.split("\0")
    sides: dict[str, tuple[State, State]] = {}
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta.startswith(":"):
            continue
        mode_before, mode_after, oid_before, oid_after, _ = meta[1:].split(" ", 4)
        sides[path] = (_state(mode_before, oid_before), _state(mode_after, oid_after))
    return sides


def _state(mode: str, oid: str) -> State:
    return None if mode == ABSENT_MODE else (mode, oid)


def _same_file(file: State | str, allowed: tuple[State, ...]) -> bool:
    """Whether a file is as one of `allowed` has it: the same content and kind (a file or a
    link). The executable bit is not compared: git reads it only where core.fileMode says."""
    if isinstance(file, str):
        return False  # could not be hashed (a fifo, an odd name): no fast-forward wrote it
    return any(_matches(file, state) for state in allowed)


def _matches(file: State, state: State) -> bool:
    if file is None or state is None:
        return file is state
    return file[1] == state[1] and _kind(file) == _kind(state)


def _kind(state: tuple[str, str]) -> str:
    return "file" if state[0] in FILE_MODES else state[0]


def _hashes(clone: Path, paths: list[str]) -> dict[str, State]:
    """Each file's (mode, object id) as git would store it now (its filters applied)."""
    found: dict[str, State] = {}
    regular = []
    for path in paths:
        try:
            info = (clone / path).lstat()
        except FileNotFoundError:
            found[path] = None
            continue
        if stat.S_ISLNK(info.st_mode):
            found[path] = ("120000", _link_id(clone, clone / path))
        elif stat.S_ISREG(info.st_mode) and "\n" not in path:
            regular.append((path, "100755" if info.st_mode & stat.S_IXUSR else "100644"))
    if regular:
        done = subprocess.run(
            ["git", *SAFE_CONFIG, "hash-object", "--stdin-paths"],
            cwd=clone,
            env=git_env(),
            input="".join(f"{path}\n" for path, _ in regular),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise GitError(f"git hash-object failed in {clone}: {done.stderr.strip()}")
        for (path, mode), oid in zip(regular, done.stdout.split(), strict=True):
            found[path] = (mode, oid)
    return found


def _link_id(clone: Path, link: Path) -> str:
    """The blob id git gives a symbolic link (its target's text), in the clone's hash."""
    target = os.fsencode(os.readlink(link))
    algorithm = "sha256" if _object_format(clone) == "sha256" else "sha1"
    return hashlib.new(algorithm, b"blob %d\0" % len(target) + target).hexdigest()


def _object_format(clone: Path) -> str:
    return run_git(clone, "rev-parse", "--show-object-format").strip()
