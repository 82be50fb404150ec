"""Big repositories for the crash suite: 60,000 small files in one shallow history, made once a
session with `git fast-import`, and a way to watch git write them closely enough to kill it
inside a step."""

from __future__ import annotations

import asyncio
import fcntl
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from activities.git.worktree_admin import LOCK_NAME
from tests.helpers.repos import git
from tests.helpers.waiting import PATIENCE

PER_DIR = 100
MOVED_EVERY = 3
"""`moved` changes every third file, as a clone that moved on under a job."""

WATCH = 0.002
"""Seconds between two looks while a step is watched: git writes thousands of files a second,
and the kill must land inside the step, not after it."""


def path_of(number: int) -> str:
    return f"d{number // PER_DIR}/f{number % PER_DIR}.txt"


def text_of(number: int, version: str) -> str:
    return f"file {number} {version}\n"


@dataclass(frozen=True)
class Template:
    """A bare repository of `files` small files: `main` is "initial", `big` changes every file
    on top of it ("big change"), `moved` every third ("moved on")."""

    bare: Path
    files: int

    @property
    def dirs(self) -> int:
        return self.files // PER_DIR

    @cached_property
    def order(self) -> list[int]:
        """File numbers in git's index order, the order a checkout writes them in."""
        return sorted(range(self.files), key=path_of)

    @cached_property
    def moved(self) -> list[int]:
        return [number for number in self.order if number % MOVED_EVERY == 0]

    def path(self, at: float) -> tuple[str, int]:
        """The path a checkout writes `at` of the way through (0 first, 1 last), and its file."""
        number = self.order[min(int(at * self.files), self.files - 1)]
        return path_of(number), number


def _commit(ref: str, mark: int, parent: int | None, subject: str, files: dict[int, str]) -> bytes:
    head = f"commit {ref}\nmark :{mark}\ncommitter Test <test@codedesk.invalid> 1700000000 +0000\n"
    parts = [f"{head}data {len(subject)}\n{subject}\n".encode()]
    if parent is not None:
        parts.append(f"from :{parent}\n".encode())
    for number, version in files.items():
        data = text_of(number, version).encode()
        parts.append(f"M 100644 inline {path_of(number)}\ndata {len(data)}\n".encode() + data)
    parts.append(b"\n")
    return b"".join(parts)


def make_template(bare: Path, files: int) -> Template:
    """Make the template at `bare` with one `git fast-import` (seconds for 60,000 files)."""
    git(bare.parent, "init", "--quiet", "--bare", "--initial-branch=main", str(bare))
    every = range(files)
    moved = [number for number in every if number % MOVED_EVERY == 0]
    stream = b"".join(
        [
            _commit("refs/heads/main", 1, None, "initial", dict.fromkeys(every, "v0")),
            _commit("refs/heads/big", 2, 1, "big change", dict.fromkeys(every, "v1")),
            _commit("refs/heads/moved", 3, 1, "moved on", dict.fromkeys(moved, "moved")),
        ]
    )
    subprocess.run(["git", "-C", str(bare), "fast-import", "--quiet"], input=stream, check=True)
    return Template(bare, files)


def origin_from(template: Template, tmp_path: Path) -> Path:
    """This test's own origin: a local clone of the template (its objects hard-linked)."""
    origin = tmp_path / "origins" / "acme" / "api.git"
    origin.parent.mkdir(parents=True)
    git(tmp_path, "clone", "--quiet", "--bare", "--local", str(template.bare), str(origin))
    return origin


def holds(path: Path, text: str) -> bool:
    try:
        return path.read_text() == text
    except (OSError, UnicodeDecodeError):
        return False


def entries(folder: Path) -> int:
    try:
        return len(os.listdir(folder))
    except OSError:
        return 0


async def watch(check: Callable[[], bool], what: str) -> None:
    """Look at `check()` every WATCH seconds until it holds (in a thread, so the look is not
    held up by the event loop); fail naming `what` after PATIENCE seconds."""
    if not await asyncio.to_thread(_look, check):
        raise AssertionError(f"waited {PATIENCE:g}s for {what}; it never came")


async def kill_when(
    check: Callable[[], bool],
    what: str,
    process: subprocess.Popen[bytes],
    seen: Callable[[], str] = lambda: "",
) -> None:
    """SIGKILL `process`'s group the moment `check()` holds, from the thread that looks.

    The kill is sent by the watching thread itself: a kill sent after the event loop picks up
    the look's result comes a scheduling round later, which on a loaded machine is long enough
    for git to finish the step (seen: a worktree's removal gone before the kill). `seen` says
    what the test saw, for the failure's message when the moment never comes."""

    def look_then_kill() -> bool:
        if not _look(check):
            return False
        os.killpg(process.pid, signal.SIGKILL)
        return True

    if not await asyncio.to_thread(look_then_kill):
        raise AssertionError(f"waited {PATIENCE:g}s for {what}; it never came. {seen()}")
    await asyncio.to_thread(process.wait, 10)


class HeldWorktreeList:
    """The clone's worktree-list flock (activities/git/worktree_admin.py), held by the test from
    its making to `release()`: a job's `git worktree remove` waits for it, so while the test holds
    it the removal has not begun, and the test lets it begin once it is ready to watch."""

    def __init__(self, clone: Path) -> None:
        self._file = (clone / ".git" / LOCK_NAME).open("a")
        fcntl.flock(self._file, fcntl.LOCK_EX)

    def release(self) -> None:
        self._file.close()  # the flock goes with the file


def slowed(process: subprocess.Popen[bytes]) -> None:
    """Run every thread of `process` under SCHED_IDLE: the git it starts from then on inherits
    it and gets the least share of a CPU anything else wants, so a thread that looks every few
    milliseconds sees its step halfway however busy the machine is (at full speed, a loaded
    machine let git remove a whole worktree between two looks)."""
    for task in os.listdir(f"/proc/{process.pid}/task"):
        try:
            os.sched_setscheduler(int(task), os.SCHED_IDLE, os.sched_param(0))
        except ProcessLookupError:  # a thread that ended meanwhile
            continue


def _look(check: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + PATIENCE  # a safety net, not a measure
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(WATCH)
    return True


def changed_files(clone: Path) -> int:
    """How many paths `git status` names (without taking the index lock a killed git left)."""
    return len(git(clone, "--no-optional-locks", "status", "--porcelain").splitlines())
