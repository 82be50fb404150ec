"""Git and disk for tests: a command run as the test's user, a bare origin, a snapshot of a
folder."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git(cwd: Path, *args: str) -> str:
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@codedesk.invalid",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@codedesk.invalid",
    )
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def make_origin(path: Path, files: dict[str, str] | None = None) -> Path:
    """A bare origin at `path` with one commit on `main` holding `files`."""
    seed = path.parent / f"{path.name}-seed"
    seed.mkdir(parents=True)
    git(seed, "init", "--quiet", "--initial-branch=main")
    for name, text in (files or {"README.md": "# sample\n"}).items():
        (seed / name).parent.mkdir(parents=True, exist_ok=True)
        (seed / name).write_text(text)
    git(seed, "add", "-A")
    git(seed, "commit", "--quiet", "-m", "initial")
    git(path.parent, "clone", "--quiet", "--bare", str(seed), str(path))
    return path


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under `root` with its size and mtime: what "changes nothing on disk" means."""
    if not root.exists():
        return {}
    found = {}
    for path in sorted(root.rglob("*")):
        stat = path.lstat()
        found[str(path.relative_to(root))] = (stat.st_size, stat.st_mtime_ns)
    return found
