"""The demo agent: a deterministic script, not an AI, that makes one real commit from the task.

Run inside a job's worktree as the `demo` preset (`--agent demo`: `{python} -I -m
surfaces.demo_agent -- {task}`), or as `python -m surfaces.demo_agent` with the task in
`CODEDESK_TASK`. It writes the task into a note under `notes/`, commits it, and says plainly
what it is.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

IDENTITY = {
    "GIT_AUTHOR_NAME": "codedesk demo agent",
    "GIT_AUTHOR_EMAIL": "demo-agent@codedesk.invalid",
    "GIT_COMMITTER_NAME": "codedesk demo agent",
    "GIT_COMMITTER_EMAIL": "demo-agent@codedesk.invalid",
}


def slug(text: str) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return words[:48].rstrip("-") or "task"


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    after = given[given.index("--") + 1 :] if "--" in given else []
    task = (" ".join(after) or os.environ.get("CODEDESK_TASK", "")).strip()
    job = os.environ.get("CODEDESK_JOB", "?")
    print("codedesk demo agent: a deterministic script, not an AI.", flush=True)
    if not task:
        print("No task in CODEDESK_TASK; nothing to do.", file=sys.stderr)
        return 2
    note = Path("notes") / f"{slug(task)}.md"
    note.parent.mkdir(exist_ok=True)
    note.write_text(f"# {task}\n\nWritten by the codedesk demo agent for job {job}.\n")
    print(f"Wrote {note} from the task text.", flush=True)
    env = {**os.environ, **IDENTITY}
    git = ["git", "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "add", str(note)], check=True, env=env)
    subprocess.run([*git, "commit", "--quiet", "-m", task[:72]], check=True, env=env)
    print(f"Committed: {task[:72]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
