#!/usr/bin/env python3
"""A stand-in for an agent CLI that takes its whole prompt when it starts (aider's
`--message=TEXT`) and nothing while it runs: each line of the prompt that is a step of the
scripted agent runs, in order (the task's, then the messages' after it); every other line (a
message's header, codedesk's words) is skipped. Then it commits what it did.

Usage: ``python3 tests/helpers/programs/one_shot_agent.py --message=PROMPT``. Standard library
only. Started under a file named `aider` (a script that runs this), codedesk takes it for that
CLI: one that resumes nothing, so messages reach it in a new run with the task.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from scripted_agent import commit, run_step, say  # noqa: E402

STEPS = ("write:", "append:", "wait-file:", "say:", "sleep:", "mark:", "commit:")


def main(argv: list[str]) -> int:
    prompt = next((arg.split("=", 1)[1] for arg in argv if arg.startswith("--message=")), "")
    for line in prompt.splitlines():
        if line.startswith(STEPS):
            run_step(line)
        elif line.strip():
            say(f"one-shot agent: read {line[:60]!r}")
    commit("one-shot agent: work")
    say("one-shot agent: done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
