"""A one-shot agent that codedesk takes for aider (by its program's name): each run takes the task
and the messages as its prompt, runs the lines that are scripted steps and commits what they did
(tests/helpers/programs/one_shot_agent.py). A revision's words are steps it runs."""

from __future__ import annotations

import sys
from pathlib import Path

ONE_SHOT = Path(__file__).parents[1] / "programs" / "one_shot_agent.py"


def one_shot_command(folder: Path) -> str:
    """The agent command of a one-shot agent whose program (named `aider`) is put in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / "aider"
    program.write_text(f'#!/bin/sh\nexec {sys.executable} {ONE_SHOT} "$@"\n')
    program.chmod(0o755)
    return f"{program} --message={{task}}"
