"""A Claude Code session as its CLI keeps it in a job's home, for tests that resume one."""

from __future__ import annotations

import json
from pathlib import Path

BOOKKEEPING_LINE = json.dumps({"type": "api-request-route", "provider": "customEndpoint"}) + "\n"
"""The line Claude Code 2.1.337 writes first in a session's file, before any of the
conversation: a CLI stopped at once leaves only this."""
USER_LINE = json.dumps({"type": "user", "message": {"role": "user", "content": "the task"}}) + "\n"
"""A line of the conversation: what makes the file a session `--resume` can take up."""


def kept_session(home: Path, session_id: str, project: str = "-shelf-worktree") -> Path:
    """`home` with Claude Code's session `session_id` in it (its file holds the task); `home`."""
    folder = home / ".claude" / "projects" / project
    folder.mkdir(parents=True)
    (folder / f"{session_id}.jsonl").write_text(BOOKKEEPING_LINE + USER_LINE)
    return home
