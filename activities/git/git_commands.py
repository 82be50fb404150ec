"""Host-side git: argument lists only, hooks and fsmonitor off, no prompts, scrubbed errors."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from activities.diagnostics import quoted
from activities.git_locks import lock_named_in, remove_stale_lock
from desk.errors import GitBusyError, GitError
from desk.payloads.jobs import CommitInfo
from desk.scrub import scrub

if TYPE_CHECKING:
    from git.exc import GitCommandError

SAFE_CONFIG = (
    "-c", "core.hooksPath=/dev/null",
    "-c", "core.fsmonitor=false",
    "-c", "protocol.ext.allow=never",
)  # fmt: skip
"""Options on every host-side git call, so a cloned repository cannot run code on the host."""


def git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    return env


BUSY_SIGNS = (
    ".lock': File exists",  # a lock file: another git runs, or a killed one left it
    "Resource temporarily unavailable",
    "Device or resource busy",
    "Text file busy",
    "early EOF",
    "the remote end hung up unexpectedly",
    "Connection reset",
)
"""Parts of git's messages that mean the failure passes: the step is retried, not failed."""

STATE_LINES = 40
"""How many lines of `git status` a failure report's Git state shows at most."""

LOG_FORMAT = "%H%x00%P%x00%s"
"""How `commit_log` asks git to print a commit: its SHA, its parents and its subject,
NUL-separated."""


def run_git(cwd: Path, *args: str) -> str:
    """Run `git <args>` in `cwd` and return its stdout; a failure raises a scrubbed GitError.

    A lock file left by a killed git is removed once and the command run again; a failure that
    passes (a live lock holder, a busy file, a dropped connection) raises GitBusyError.
    """
    # GitPython is imported here, not above: every surface imports this module through the
    # workflows' activity references, and a command like `codedesk jobs` runs no git at all.
    from git.exc import GitCommandError

    try:
        return _execute(cwd, args)
    except GitCommandError as error:
        lock = lock_named_in(_detail(error))
        if lock is None or not remove_stale_lock(lock):
            raise _git_error(cwd, args, error) from None
    try:
        return _execute(cwd, args)
    except GitCommandError as error:
        raise _git_error(cwd, args, error) from None


def _execute(cwd: Path, args: tuple[str, ...]) -> str:
    command = ["git", *SAFE_CONFIG, *args]
    from git import Git

    return str(Git(str(cwd)).execute(command, env=git_env(), strip_newline_in_stdout=True))


def _detail(error: GitCommandError) -> str:
    return str(error.stderr or error.stdout or "").strip()


def _git_error(cwd: Path, args: tuple[str, ...], error: GitCommandError) -> GitError:
    detail = _detail(error)
    message = f"git {args[0]} failed in {cwd}: {quoted(detail) or 'no message'}"
    if any(sign in detail for sign in BUSY_SIGNS):
        return GitBusyError(f"{message} (a passing failure: the step is retried)")
    return GitError(message)


def try_git(cwd: Path, *args: str) -> tuple[bool, str]:
    """Run git and report success instead of raising; the text is stdout or the scrubbed error.

    A failure that passes (GitBusyError) is raised all the same: it says nothing about the
    question asked, and the step is retried.
    """
    try:
        return True, run_git(cwd, *args)
    except GitBusyError:
        raise
    except GitError as error:
        return False, str(error)


def commit_log(cwd: Path, span: str) -> list[CommitInfo]:
    """The commits of `span` (`base..tip`), oldest first, each with its SHA and subject."""
    return [commit for commit, _ in _log(cwd, span)]


def commit_line(cwd: Path, base: str, tip: str) -> tuple[list[CommitInfo], bool]:
    """The commits of `base..tip`, oldest first, and whether they form one line on `base`:
    each commit's only parent is the commit before it, the first one's is `base`. Such a
    line is already rebased onto `base`, and `tip` is its last commit."""
    found = _log(cwd, f"{base}..{tip}")
    parent, line = base, True
    for commit, parents in found:
        line = line and parents == [parent]
        parent = commit.sha
    return [commit for commit, _ in found], line


def _log(cwd: Path, span: str) -> list[tuple[CommitInfo, list[str]]]:
    out = run_git(cwd, "log", "--reverse", f"--format={LOG_FORMAT}", span)
    found = []
    for line in lines(out):
        sha, parents, subject = line.split("\x00", 2)
        found.append((CommitInfo(sha=sha, subject=subject), parents.split()))
    return found


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


@dataclass(frozen=True)
class CheckoutStatus:
    """What one `git status --porcelain=v2 --branch` says of a checkout."""

    head: str
    """The commit HEAD names; empty on an unborn branch."""
    branch: str
    """The branch HEAD is on (short name); empty when HEAD is detached."""
    dirty: list[str]
    """Paths with uncommitted changes (tracked or untracked), as `git status` names them."""


PORCELAIN_FIELDS = {"1": 8, "2": 9, "u": 10, "?": 1, "!": 1}
"""How many space-separated fields come before the path in each kind of porcelain-v2 entry
(a rename's path is followed by a tab and the path it had)."""


def checkout_status(cwd: Path) -> CheckoutStatus:
    out = run_git(cwd, "status", "--porcelain=v2", "--branch", "--untracked-files=all")
    head = branch = ""
    dirty = []
    for line in out.splitlines():
        if line.startswith("# branch.oid "):
            head = line.removeprefix("# branch.oid ").removeprefix("(initial)")
        elif line.startswith("# branch.head "):
            branch = line.removeprefix("# branch.head ").removeprefix("(detached)")
        elif not line.startswith("#") and (fields := PORCELAIN_FIELDS.get(line[:1])):
            dirty.append(line.split(" ", fields)[fields].split("\t", 1)[0])
    return CheckoutStatus(head, branch, dirty)


def porcelain_files(cwd: Path) -> list[str]:
    """Paths with uncommitted changes (tracked or untracked), as `git status` names them."""
    return checkout_status(cwd).dirty


def head_sha(cwd: Path) -> str:
    return run_git(cwd, "rev-parse", "HEAD").strip()


def git_state(cwd: Path) -> str:
    """A short, scrubbed picture of a checkout's state for a failure report."""
    ok, status = try_git(cwd, "status", "--short", "--branch", "--untracked-files=normal")
    ok_log, log = try_git(cwd, "log", "--oneline", "-5")
    shown = status.splitlines()
    if len(shown) > STATE_LINES:  # a clone cut mid-way names thousands of files
        more = len(shown) - STATE_LINES
        status = "\n".join([*shown[:STATE_LINES], f"... and {more} more"])
    parts = [status if ok else f"(status unavailable: {status})"]
    if ok_log:
        parts.append(log)
    return scrub("\n".join(part for part in parts if part))
