"""Taking a sandboxed agent's branch back: what the agent left in git's files cannot reach the
host (real git, a real worktree; the agent's writes are made by hand as it could make them)."""

from __future__ import annotations

from pathlib import Path

from activities.agent_git import agent_git, prepare, take_back
from desk.models import Worktree
from tests.conftest import git


def a_job(tmp_path: Path) -> tuple[Path, Worktree]:
    clone = tmp_path / "clone"
    clone.mkdir()
    git(clone, "init", "--quiet", "--initial-branch=main")
    (clone / "README.md").write_text("# sample\n")
    git(clone, "add", "-A")
    git(clone, "commit", "--quiet", "-m", "initial")
    path = tmp_path / "worktrees" / "1"
    git(clone, "worktree", "add", "--quiet", "-b", "worker/1", str(path))
    base = git(clone, "rev-parse", "HEAD")
    return clone, Worktree(path=str(path), branch="worker/1", base=base)


def test_links_and_pointers_the_agent_planted_are_gone_before_host_git_runs(
    tmp_path: Path,
) -> None:
    clone, worktree = a_job(tmp_path)
    layout = agent_git(tmp_path / "job", worktree)
    prepare(layout)
    victim = tmp_path / "owner-file"
    victim.write_text("the owner's\n")
    # What the agent could write: a reflog that is a link, a git dir pointer to its own repo,
    # a worktree config, and a `commondir` naming another git dir.
    (layout.admin / "logs").mkdir(exist_ok=True)
    (layout.admin / "logs" / "HEAD").unlink(missing_ok=True)
    (layout.admin / "logs" / "HEAD").symlink_to(victim)
    (Path(worktree.path) / ".git").write_text(f"gitdir: {tmp_path / 'evil'}\n")
    (layout.admin / "config.worktree").write_text('[core]\n\tfsmonitor = "touch pwned"\n')
    (layout.admin / "commondir").write_text(f"{tmp_path / 'evil'}\n")

    take_back(layout)

    assert not (layout.admin / "logs" / "HEAD").is_symlink()
    assert not (layout.admin / "config.worktree").exists()
    assert (layout.admin / "commondir").read_text() == "../..\n"
    assert (Path(worktree.path) / ".git").read_text() == f"gitdir: {layout.admin}\n"
    # Host-side git in the worktree now sees the clone's branch, and the owner's file is intact.
    git(Path(worktree.path), "commit", "--quiet", "--allow-empty", "-m", "host side")
    assert git(clone, "log", "-1", "--format=%s", "worker/1") == "host side"
    assert victim.read_text() == "the owner's\n"
