"""What the shelf says of each clone: its git state, and what its own files say it is."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from activities.git.git_commands import LOG_FORMAT, lines, porcelain_files, run_git, try_git
from activities.shelf.clone_files import ci_hints, instruction_files, readme_summary
from desk.payloads.jobs import CloneInfo, CommitInfo


def shelf_clones(shelf: Path) -> list[Path]:
    """Clones on the shelf, sorted; nothing dot-leading (.worktrees, a clone being made)."""
    if not shelf.is_dir():
        return []
    found = []
    for owner in sorted(shelf.iterdir()):
        if owner.name.startswith(".") or not owner.is_dir():
            continue
        for repo in sorted(owner.iterdir()):
            if not repo.name.startswith(".") and (repo / ".git").exists():
                found.append(repo)
    return found


def describe_clone(repo: str, path: Path, commits: int = 1) -> CloneInfo:
    """Read one clone's state: branch, upstream and distance, dirty files, its last `commits`
    commits (newest first), its README's summary, the instruction files an agent will read and
    its CI hints (read under the rules of activities/shelf/clone_files.py)."""
    branch = run_git(path, "rev-parse", "--abbrev-ref", "HEAD").strip()
    ok, upstream = try_git(path, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}")
    ahead = behind = 0
    if ok:
        counts = run_git(path, "rev-list", "--left-right", "--count", "HEAD...@{u}").split()
        ahead, behind = int(counts[0]), int(counts[1])
    head = last = ""
    when: datetime | None = None
    has_commit, log = try_git(path, "log", "-1", "--format=%H%x00%s%x00%cI")
    if has_commit and log:
        head, last, stamp = log.split("\x00")
        when = datetime.fromisoformat(stamp)
    hints, refused = ci_hints(path)
    return CloneInfo(
        repo=repo,
        path=str(path),
        branch=branch,
        upstream=upstream.strip() if ok else "",
        ahead=ahead,
        behind=behind,
        dirty=porcelain_files(path),
        head=head,
        last_commit=last,
        last_commit_at=when,
        recent_commits=_recent(path, commits) if head else [],
        summary=readme_summary(path),
        instruction_files=instruction_files(path),
        ci_hints=hints,
        refused_folders=refused,
    )


def _recent(path: Path, commits: int) -> list[CommitInfo]:
    """The last `commits` commits of HEAD, newest first."""
    out = run_git(path, "log", f"-{commits}", f"--format={LOG_FORMAT}", "HEAD")
    found = []
    for line in lines(out):
        sha, _, subject = line.split("\x00", 2)
        found.append(CommitInfo(sha=sha, subject=subject))
    return found
