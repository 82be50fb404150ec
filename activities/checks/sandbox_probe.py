"""Whether a preset's program starts in the agent's sandbox: `PROGRAM --version` inside bwrap.

It runs as a job's agent would be run: the owner's home, codedesk's home and the shelf hidden,
the program's install and `sandbox_read_paths` bound back read-only, a home of its own seeded
from the owner's configuration of the CLI, and the environment `agent_env` lets through (no
network: `--version` needs none). What fails there and not on the host is what the sandbox
lacks, and the answer says so with the fix (`codedesk doctor`).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

from activities.agent.process.cli_home import seed_cli_home
from activities.agent.process.launch import passed_environment
from activities.sandbox.bubblewrap import (
    SandboxLayout,
    bwrap_argv,
    hidden_paths,
    read_paths,
    tool_paths,
)
from desk.agents.homes import home_variables
from desk.config.settings import DeskSettings

PROBE_TIMEOUT = 30.0
SHOWN_LINE = 200
TELLING = re.compile(r"error|not found|cannot|denied|no such|missing", re.IGNORECASE)
"""A line of a failed start that says why (node ends its trace with its own version)."""


def sandbox_problem(settings: DeskSettings, program: str, path: str) -> str:
    """What `program` (found at `path`) lacks to start in the sandbox; empty when it starts."""
    with tempfile.TemporaryDirectory(prefix="codedesk-probe-") as folder:
        worktree, home = Path(folder, "worktree"), Path(folder, "home")
        worktree.mkdir()
        seeded = seed_cli_home(home, program, os.environ, Path.home())
        env = passed_environment(settings.agent_env, dict(os.environ))
        env.update({"HOME": str(home), **home_variables(str(home))})
        tools = tool_paths(hidden_paths(settings), path, env.get("PATH", ""))
        layout = SandboxLayout(
            worktree=worktree,
            writable=[(home, home)],
            readable=[*tools, *read_paths(settings), *seeded],
            hidden=hidden_paths(settings),
        )
        try:
            done = subprocess.run(
                bwrap_argv(layout, [path, "--version"]),
                capture_output=True,
                text=True,
                timeout=PROBE_TIMEOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                cwd=worktree,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"`{program} --version` did not answer in the sandbox: {error}."
    if done.returncode == 0:
        return ""
    return (
        f"`{program} --version` fails in the sandbox (exit {done.returncode}: "
        f"{_telling_line(done.stderr or done.stdout)}): what it "
        "needs is hidden there; add its folders to CODEDESK_SANDBOX_READ_PATHS, or the "
        "variables it needs to CODEDESK_AGENT_ENV."
    )


def _telling_line(output: str) -> str:
    """The last line of `output` that says why it failed, else its last line."""
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    telling = [line for line in lines if TELLING.search(line)]
    return ((telling or lines or ["no output"])[-1])[:SHOWN_LINE]
