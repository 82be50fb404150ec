"""Scripted agents as job commands: the steps a test's agent takes."""

from __future__ import annotations

import json
import shlex
import sys
import uuid
from pathlib import Path

SCRIPTED_AGENT = Path(__file__).parent / "programs" / "scripted_agent.py"


def agent(*steps: str) -> str:
    """An agent command running the scripted agent with these steps."""
    quoted = " ".join(f"'{step}'" for step in steps)
    return f"{sys.executable} {SCRIPTED_AGENT} {quoted}"


def agent_script(folder: Path, *steps: str) -> str:
    """An agent command running the scripted agent with steps from a script in `folder`.

    For steps that carry credentials: an agent command holding one is refused, since the job's
    history would keep it as given.
    """
    script = folder / f"agent-{uuid.uuid4().hex[:8]}.sh"
    quoted = " ".join(shlex.quote(step) for step in steps)
    script.write_text(f"exec {shlex.quote(sys.executable)} {SCRIPTED_AGENT} {quoted}\n")
    return f"sh {script}"


def usage_step(**fields: object) -> str:
    return "usage:" + json.dumps(fields)
