"""Reading a clone's own files to describe it, under rules that a hostile repository cannot
turn against the host.

A clone's files are the repository's: a README may be a symlink to the owner's private key, a
workflow folder a symlink to `/etc`, an instruction file a FIFO that blocks a reader forever or
a gigabyte that fills the worker's memory. So every file is opened component by component from
the clone's top with `O_NOFOLLOW` (no symlink anywhere on the path, the last part included),
only regular files are read, and at most READ_LIMIT bytes of each.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

READ_LIMIT = 64 * 1024
"""Bytes read of one file at most."""

SUMMARY_CHARS = 200
"""Characters of a README's summary line at most."""

README_NAMES = ("README.md", "README.rst", "README.txt", "README", "readme.md")

INSTRUCTION_FILES = (
    "CLAUDE.md",
    "AGENTS.md",
    "GEMINI.md",
    "CONVENTIONS.md",
    "CONTRIBUTING.md",
    ".cursorrules",
    ".windsurfrules",
    ".github/copilot-instructions.md",
    ".claude/CLAUDE.md",
)
"""Files an agent reads as the repository's instructions, each a plain file."""

INSTRUCTION_FOLDERS = (".cursor/rules", ".github/instructions")
"""Folders whose plain files an agent reads as instructions."""

CI_FOLDERS = (".github/workflows", ".gitea/workflows", ".forgejo/workflows")
"""Folders whose plain files are CI workflows, one hint each."""

CI_FILES = (
    ".gitlab-ci.yml",
    ".circleci/config.yml",
    ".travis.yml",
    "azure-pipelines.yml",
    "Jenkinsfile",
    ".buildkite/pipeline.yml",
    ".woodpecker.yml",
    "bitbucket-pipelines.yml",
)
"""Single files that configure a CI, one hint each."""

LISTED_AT_MOST = 20
"""Names one folder contributes at most."""

_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@contextmanager
def _folder(clone: Path, parts: tuple[str, ...]) -> Iterator[int | None]:
    """A descriptor of the folder `parts` under the clone, reached without following any
    symlink; None when some part is missing, not a folder, or a symlink."""
    opened: list[int] = []
    try:
        current = os.open(clone, _OPEN_DIR)
        opened.append(current)
        for part in parts:
            current = os.open(part, _OPEN_DIR, dir_fd=current)
            opened.append(current)
    except OSError:
        yield None
    else:
        yield current
    finally:
        for descriptor in opened:
            os.close(descriptor)


def _split(relative: str) -> tuple[str, ...]:
    parts = PurePosixPath(relative).parts
    if not parts or any(part in ("", ".", "..") for part in parts) or parts[0] == "/":
        raise ValueError(f"{relative!r} is not a path inside the clone")
    return parts


def read_clone_file(clone: Path, relative: str) -> str | None:
    """The first READ_LIMIT bytes of the clone's regular file `relative`, as text; None when
    it is missing, a symlink (or under one), a folder or a special file."""
    *folders, name = _split(relative)
    with _folder(clone, tuple(folders)) as parent:
        if parent is None:
            return None
        try:
            descriptor = os.open(name, _OPEN_FILE, dir_fd=parent)
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return None
            return os.read(descriptor, READ_LIMIT).decode("utf-8", errors="replace")
        finally:
            os.close(descriptor)


def is_clone_file(clone: Path, relative: str) -> bool:
    """Whether `relative` is a regular file of the clone, reached through no symlink."""
    *folders, name = _split(relative)
    with _folder(clone, tuple(folders)) as parent:
        if parent is None:
            return False
        try:
            mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
        except OSError:
            return False
        return stat.S_ISREG(mode)


def folder_files(clone: Path, relative: str) -> list[str] | None:
    """The regular files directly in the clone's folder `relative` (by their paths from the
    clone's top, sorted, at most LISTED_AT_MOST); None when the folder is missing, a symlink or
    under one: a symlinked folder is refused, not followed."""
    parts = _split(relative)
    with _folder(clone, parts) as folder:
        if folder is None:
            return None
        names = []
        for entry in sorted(os.listdir(folder)):
            try:
                mode = os.stat(entry, dir_fd=folder, follow_symlinks=False).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode):
                names.append(f"{relative}/{entry}")
        return names[:LISTED_AT_MOST]


def readme_summary(clone: Path) -> str:
    """One line that says what the repository is: the first line of its README's prose (not a
    heading's marks, a badge, an HTML tag or a rule), at most SUMMARY_CHARS long; else its
    title; "" when it has no readable README."""
    for name in README_NAMES:
        text = read_clone_file(clone, name)
        if text is not None:
            return _summary_of(text)
    return ""


def _summary_of(text: str) -> str:
    title = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("<", "[![", "![", "---", "===", "```", "..")):
            continue
        if line.startswith("#"):
            title = title or line.lstrip("#").strip()
            continue
        return _capped(line)
    return _capped(title)


def _capped(line: str) -> str:
    return line if len(line) <= SUMMARY_CHARS else line[: SUMMARY_CHARS - 1] + "…"


def instruction_files(clone: Path) -> list[str]:
    """The instruction files an agent will read in the clone, by path from its top."""
    found = [name for name in INSTRUCTION_FILES if is_clone_file(clone, name)]
    for folder in INSTRUCTION_FOLDERS:
        found += folder_files(clone, folder) or []
    return found


def ci_hints(clone: Path) -> tuple[list[str], list[str]]:
    """The clone's CI configuration files, and the CI folders refused because they are (or lie
    under) a symlink."""
    hints, refused = [], []
    for folder in CI_FOLDERS:
        files = folder_files(clone, folder)
        if files is not None:
            hints += files
        elif _is_symlinked(clone, folder):
            refused.append(folder)
    hints += [name for name in CI_FILES if is_clone_file(clone, name)]
    return hints, refused


def _is_symlinked(clone: Path, relative: str) -> bool:
    """Whether some part of `relative` under the clone is a symlink."""
    path = clone
    for part in _split(relative):
        path = path / part
        if path.is_symlink():
            return True
        if not path.is_dir():
            return False
    return False
