"""The untracked files a repository's set-up left in a job's worktree: not the agent's work.

A set-up such as `npm run build` or `touch setup-ran.flag` may leave files git does not track
and does not ignore; the agent's uncommitted check would refuse every job of the repository
for them. Right after the set-up, each untracked file is recorded with a digest of its content
in the job's own folder, outside the worktree: the sandboxed agent can neither read nor write
it, and it is written once the set-up command has ended. When the job integrates, an untracked
file counts as the set-up's only while it is in that record with the same content: one the
agent wrote, changed, or put where a set-up file was, with other bytes, is the agent's.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from activities.git.git_commands import run_git

SETUP_FILES = "setup-files.json"
"""The record in the job's folder (`<home>/jobs/<n>/`)."""
READ_CHUNK = 1 << 20


def record_setup_files(folder: Path, worktree: Path) -> list[str]:
    """Record the worktree's untracked files and their digests; returns their paths.

    Written whole and replaced at once, so a retried set-up leaves one record, its own.
    """
    files = {path: _digest(worktree / path) for path in untracked_files(worktree)}
    record = folder / SETUP_FILES
    fresh = record.with_suffix(".tmp")
    fresh.write_text(json.dumps({"files": files}, ensure_ascii=True))
    os.replace(fresh, record)
    return sorted(files)


def setup_files_left(folder: Path, worktree: Path) -> set[str]:
    """The untracked files of the worktree that the set-up left and nobody changed since."""
    record = folder / SETUP_FILES
    if not record.is_file():
        return set()
    recorded: dict[str, str | None] = json.loads(record.read_text()).get("files", {})
    left = set()
    for path in untracked_files(worktree):
        digest = _digest(worktree / path) if path in recorded else None
        if digest is not None and digest == recorded[path]:
            left.add(path)
    return left


def split_uncommitted(
    folder: Path, worktree: Path, dirty: list[str]
) -> tuple[list[str], list[str]]:
    """`dirty` (as `git status` names them) parted into the agent's and the set-up's files."""
    setup_left = setup_files_left(folder, worktree) if dirty else set()
    agents: list[str] = []
    setups: list[str] = []
    for shown in dirty:
        (setups if git_unquoted(shown) in setup_left else agents).append(shown)
    return agents, setups


def untracked_files(worktree: Path) -> list[str]:
    """Files git neither tracks nor ignores, each by its path as the file system spells it."""
    out = run_git(worktree, "ls-files", "--others", "--exclude-standard", "-z")
    return [path for path in out.split("\0") if path]


def git_unquoted(shown: str) -> str:
    """A path as `git status` prints it (C-quoted when it holds unusual bytes), as it is."""
    if not (len(shown) >= 2 and shown.startswith('"') and shown.endswith('"')):
        return shown
    escapes = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
    body, raw, at = shown[1:-1], bytearray(), 0
    while at < len(body):
        char = body[at]
        if char == "\\" and at + 1 < len(body):
            following = body[at + 1]
            if following in escapes:
                raw.append(escapes[following])
                at += 2
                continue
            if body[at + 1 : at + 4].isdigit():
                raw.append(int(body[at + 1 : at + 4], 8) & 0xFF)
                at += 4
                continue
        raw += os.fsencode(char)
        at += 1
    return os.fsdecode(bytes(raw))


def _digest(path: Path) -> str | None:
    """What a file holds: its bytes' SHA-256, or where a symbolic link points; None when it
    cannot be read (such a file is never the set-up's: the check fails closed)."""
    if path.is_symlink():
        return "link:" + os.readlink(path)
    hashed = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(READ_CHUNK):
                hashed.update(chunk)
    except OSError:
        return None
    return "sha256:" + hashed.hexdigest()
