"""A job's worktree cut from a fresh clone, and an agent's branch moved by hand as a sandboxed agent
could move it."""

from __future__ import annotations

from pathlib import Path

from activities.agent.process.agent_git import AgentGit
from desk.payloads.jobs import Worktree
from tests.helpers.repos import git


def a_job(tmp_path: Path, branch: str = "worker/1") -> tuple[Path, Worktree]:
    clone = tmp_path / "clone"
    clone.mkdir()
    git(clone, "init", "--quiet", "--initial-branch=main")
    (clone / "README.md").write_text("# sample\n")
    git(clone, "add", "-A")
    git(clone, "commit", "--quiet", "-m", "initial")
    path = tmp_path / "worktrees" / "1"
    git(clone, "worktree", "add", "--quiet", "-b", branch, str(path))
    base = git(clone, "rev-parse", "HEAD")
    return clone, Worktree(path=str(path), branch=branch, base=base)


def agent_branch_at(layout: AgentGit, sha: str) -> None:
    (layout.refs / layout.leaf).write_text(f"{sha}\n")
