"""Whether a held call is a push codedesk ships itself: a plain push to the default branch.

The hold channel asks this of each held shell call, on the host, before it asks the job. The
rule (`desk.shell_rule.plain_push`) reads the command; the worktree says which branch is the
job's and which is the origin's default (read locally, without reaching the origin: the change
report checks it again against the remote before anything is pushed).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from activities.git.commands import try_git
from desk.shell_rule.calls import SHELL_TOOLS
from desk.shell_rule.plain_push import plain_push


def ships_to(tool: str, call: object, worktree: str) -> str:
    """The default branch a plain push of the job's work names, else "" (an ordinary hold)."""
    if tool not in SHELL_TOOLS or not isinstance(call, Mapping) or not worktree:
        return ""
    if not _in_worktree(call.get("workdir", call.get("cwd")), worktree):
        return ""
    where = Path(worktree)
    ok, branch = try_git(where, "symbolic-ref", "--quiet", "--short", "HEAD")
    if not ok:
        return ""
    destination = plain_push(call.get("command", call.get("cmd")), branch.strip())
    if destination is None or destination != _default_branch(where):
        return ""
    return destination


def _in_worktree(workdir: object, worktree: str) -> bool:
    """The command runs in the job's worktree (git would push another repository elsewhere)."""
    if workdir is None or workdir == "":
        return True
    if not isinstance(workdir, str):
        return False
    root = os.path.realpath(worktree)
    path = os.path.realpath(os.path.join(worktree, workdir))
    return path == root or path.startswith(root + os.sep)


def _default_branch(worktree: Path) -> str:
    """origin/HEAD as the clone last saw it, else the branch the clone has checked out."""
    ok, ref = try_git(worktree, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
    if ok and ref.strip().startswith("refs/remotes/origin/"):
        return ref.strip().removeprefix("refs/remotes/origin/")
    ok, common = try_git(worktree, "rev-parse", "--path-format=absolute", "--git-common-dir")
    if not ok:
        return ""
    ok, ref = try_git(Path(common.strip()), "symbolic-ref", "--quiet", "--short", "HEAD")
    return ref.strip() if ok else ""
