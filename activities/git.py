"""Host-side git: argument lists only, hooks and fsmonitor off, no prompts, scrubbed errors."""

from __future__ import annotations

import os
from pathlib import Path

from desk.errors import GitError
from desk.scrub import scrub

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


def run_git(cwd: Path, *args: str) -> str:
    """Run `git <args>` in `cwd` and return its stdout; a failure raises a scrubbed GitError."""
    # GitPython is imported here, not above: every surface imports this module through the
    # workflows' activity references, and a command like `codedesk jobs` runs no git at all.
    from git import Git
    from git.exc import GitCommandError

    command = ["git", *SAFE_CONFIG, *args]
    try:
        output = Git(str(cwd)).execute(command, env=git_env(), strip_newline_in_stdout=True)
    except GitCommandError as error:
        detail = scrub(str(error.stderr or error.stdout or "").strip())
        raise GitError(f"git {args[0]} failed in {cwd}: {detail or 'no message'}") from None
    return str(output)


def try_git(cwd: Path, *args: str) -> tuple[bool, str]:
    """Run git and report success instead of raising; the text is stdout or the scrubbed error."""
    try:
        return True, run_git(cwd, *args)
    except GitError as error:
        return False, str(error)


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def porcelain_files(cwd: Path) -> list[str]:
    """Paths with uncommitted changes (tracked or untracked), as `git status` names them."""
    out = run_git(cwd, "status", "--porcelain=v1", "--untracked-files=all")
    return [line[3:] for line in out.splitlines() if len(line) > 3]


def head_sha(cwd: Path) -> str:
    return run_git(cwd, "rev-parse", "HEAD").strip()


def git_state(cwd: Path) -> str:
    """A short, scrubbed picture of a checkout's state for a failure report."""
    ok, status = try_git(cwd, "status", "--short", "--branch", "--untracked-files=normal")
    ok_log, log = try_git(cwd, "log", "--oneline", "-5")
    parts = [status if ok else f"(status unavailable: {status})"]
    if ok_log:
        parts.append(log)
    return scrub("\n".join(part for part in parts if part))
