"""Whether a held call is a push codedesk carries out itself: a plain push of the job's work.

The hold channel asks this of each held shell call, on the host, before it asks the job. The
rule (`desk.shell_rule.plain_push`) reads the command; the worktree says which branch is the
job's, its HEAD now, and which branch is the origin's default (read locally, without reaching
the origin: the change report, or the branch push, checks it again against the remote before
anything is pushed).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from activities.git.git_commands import try_git
from desk.shell_rule.plain_push import plain_push
from desk.shell_rule.shell_calls import SHELL_TOOLS

SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True)
class PushTarget:
    """Where a plain push of the job's work goes: `branch`, the origin's default or not, and
    the job's HEAD when the agent asked."""

    branch: str
    default: bool
    head: str


def push_target(tool: str, call: object, worktree: str, branch_ref: str = "") -> PushTarget | None:
    """The plain push of the job's work this call is, or None (an ordinary hold).

    `branch_ref` is where a sandboxed agent's branch ref lives on the host (its commits are not
    in the clone's refs until the run ends); without it the worktree's HEAD is the job's.
    """
    if tool not in SHELL_TOOLS or not isinstance(call, Mapping) or not worktree:
        return None
    if not _in_worktree(call.get("workdir", call.get("cwd")), worktree):
        return None
    where = Path(worktree)
    ok, branch = try_git(where, "symbolic-ref", "--quiet", "--short", "HEAD")
    head = _sandboxed_head(branch_ref)
    if not head:
        known, said = try_git(where, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
        head = said.strip() if known else ""
    if not (ok and head):
        return None
    destination = plain_push(call.get("command", call.get("cmd")), branch.strip())
    if destination is None:
        return None
    return PushTarget(destination, destination == _default_branch(where), head)


def _sandboxed_head(branch_ref: str) -> str:
    """The commit a sandboxed agent's branch names (a SHA, or "" when there is none to read)."""
    if not branch_ref:
        return ""
    try:
        tip = Path(branch_ref).read_text().strip()
    except (OSError, UnicodeDecodeError):
        return ""
    return tip if SHA.fullmatch(tip) else ""


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
