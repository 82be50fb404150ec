"""The files agent CLIs write for themselves are kept out of git through the clone's exclude file.

aider, for one, keeps its repository map (`.aider.tags.cache.v4/`) in the worktree. Listed in
`.git/info/exclude` of the clone (shared by all its worktrees), such files are never committed
by an agent's `git add -A`, never integrated and never a reason to refuse a job for a dirty tree.
"""

from __future__ import annotations

from pathlib import Path

from desk.agents.presets import all_own_files

MARK = "# codedesk: files agent CLIs write for themselves"


def exclude_agent_files(clone: Path) -> None:
    """Add the agent CLIs' own files to the clone's `info/exclude` (once; safe to repeat)."""
    exclude = clone / ".git" / "info" / "exclude"
    text = exclude.read_text() if exclude.is_file() else ""
    present = {line.strip() for line in text.splitlines()}
    missing = [pattern for pattern in all_own_files() if pattern not in present]
    if not missing:
        return
    exclude.parent.mkdir(parents=True, exist_ok=True)
    lead = "" if not text or text.endswith("\n") else "\n"
    heading = "" if MARK in present else f"{MARK}\n"
    exclude.write_text(text + lead + heading + "".join(f"{pattern}\n" for pattern in missing))
