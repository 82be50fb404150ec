"""Git for tests: a command run as the test's user, a bare origin."""

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
