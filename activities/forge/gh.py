"""Running `gh` on the host: found on the worker's PATH, logged in with the host's own login.

Credentials stay where gh keeps them (its config or GH_TOKEN in the worker's environment): no
token is ever put in an argument or a URL, and what gh says back is scrubbed before it is shown.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from activities.diagnostics import quoted
from desk.errors import ForgeCallError, ForgeError

GH = "gh"
GH_TIMEOUT = 120.0
"""One gh call (a pull request's creation talks to the forge's API once or twice)."""


def gh_program() -> str:
    """gh's path on this worker's PATH, or a refusal that says how to get it."""
    found = shutil.which(GH)
    if found is None:
        raise ForgeError(
            "gh (the GitHub CLI) is not on this worker's PATH, so no pull request can be opened: "
            "install it on the host that holds the clone and log in with `gh auth login`. "
            "Nothing was pushed."
        )
    return found


def require_login(program: str, clone: Path) -> None:
    """Refuse before anything is pushed when gh is not logged in on this host."""
    done = _gh(program, clone, "auth", "status")
    if done.returncode != 0:
        raise ForgeError(
            f"gh is not logged in on this host ({_said(done)}): log in with `gh auth login` "
            "as the user the worker runs as. Nothing was pushed."
        )


def gh_output(program: str, clone: Path, *args: str) -> str:
    """gh's stdout; a failure is retried (the forge may be down for a moment)."""
    done = _gh(program, clone, *args)
    if done.returncode != 0:
        raise ForgeCallError(
            f"gh {args[0]} {args[1] if len(args) > 1 else ''} failed ({_said(done)}); "
            "it is tried again."
        )
    return done.stdout


def _gh(program: str, clone: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"GH_PROMPT_DISABLED": "1", "GH_NO_UPDATE_NOTIFIER": "1", "NO_COLOR": "1"}
    try:
        return subprocess.run(
            [program, *args],
            cwd=clone,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=GH_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ForgeCallError(
            f"gh {args[0]} gave no answer in {GH_TIMEOUT:.0f} s; it is tried again."
        ) from None


def _said(done: subprocess.CompletedProcess[str]) -> str:
    """What gh said, scrubbed and cut to the setting (CODEDESK_DIAGNOSTIC_CHARS)."""
    return quoted(done.stderr or done.stdout or "") or f"exit {done.returncode}"
