"""An agent command for a job of several attempts started from chat, where every attempt runs
the host's one command: each attempt's agent commits a file named after its own job
(`job-<number>.txt`), so what landed says which attempt was picked."""

from __future__ import annotations

import shlex
import sys
import uuid
from pathlib import Path

from tests.helpers.agents import SCRIPTED_AGENT


def writes_its_own_file(folder: Path) -> str:
    """The command (a script in `folder`, a path the agents may read)."""
    script = folder / f"attempt-{uuid.uuid4().hex[:8]}.sh"
    script.write_text(
        f"exec {shlex.quote(sys.executable)} {shlex.quote(str(SCRIPTED_AGENT))} "
        '"write:job-$CODEDESK_JOB.txt=from job $CODEDESK_JOB" '
        '"commit:add job-$CODEDESK_JOB.txt"\n'
    )
    return f"sh {script}"


def attempt_file(number: int) -> str:
    """The file attempt job `number` commits."""
    return f"job-{number}.txt"
