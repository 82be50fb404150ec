"""What `codedesk doctor` asks a worker's host: git, the agents' programs, sandbox, imports."""

from __future__ import annotations

import asyncio
import importlib.util
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from temporalio import activity

from activities.checks.preset_checks import preset_checks
from activities.checks.sandbox_probe import sandbox_problem
from activities.sandbox.bubblewrap import UNCONFINED, choose_sandbox, describe
from desk.agents.presets import PRESETS, with_python
from desk.config.settings import DeskSettings
from desk.errors import DeskError
from desk.payloads.jobs import HostReport, HostReportInput

OWN_PACKAGES = ("desk", "workflows", "activities", "workers", "surfaces")
"""codedesk's top-level import packages: each must be codedesk's own, not a namesake's."""
GIT_TIMEOUT = 10.0


class HostActivities:
    """Built by the worker with this host's settings."""

    def __init__(self, settings: DeskSettings) -> None:
        self.settings = settings

    @activity.defn
    async def host_report(self, request: HostReportInput) -> HostReport:
        """git's version, where each preset's program is, the sandbox and the import roots."""
        return await asyncio.to_thread(self._report, request)

    def _report(self, request: HostReportInput) -> HostReport:
        git, git_problem = git_version()
        sandbox_status, sandbox = sandbox_state(self.settings)
        agent = program_of(request.agent_command) if request.agent_command else ""
        presets = preset_checks()
        # Each installed preset started as an agent is, where agents run confined.
        confined = sandbox_status == "ok"
        in_sandbox = {
            check.name: sandbox_problem(self.settings, check.program, check.path)
            for check in presets
            if confined and check.path
        }
        return HostReport(
            host=activity.info().task_queue,
            git=git,
            git_problem=git_problem,
            agent_program=agent,
            agent_path=(shutil.which(agent) or "") if agent else "",
            programs={name: shutil.which(program_of(cmd)) or "" for name, cmd in PRESETS.items()},
            preset_versions={check.name: check.version for check in presets if check.version},
            preset_problems={check.name: check.problem for check in presets if check.problem},
            preset_sandbox=in_sandbox,
            sandbox=sandbox,
            sandbox_status=sandbox_status,
            imports=import_roots(),
        )


def program_of(command: str) -> str:
    """The program an agent command starts (`{python}`: this host's Python)."""
    return with_python(shlex.split(command)[0], sys.executable)


def git_version() -> tuple[str, str]:
    """(`git version 2.x`, "") or ("", what went wrong)."""
    try:
        done = subprocess.run(
            ["git", "--version"], capture_output=True, text=True, timeout=GIT_TIMEOUT
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return "", f"git cannot be run: {error}"
    if done.returncode != 0:
        return "", f"`git --version` exited with {done.returncode}"
    return done.stdout.strip(), ""


def sandbox_state(settings: DeskSettings) -> tuple[str, str]:
    """(ok | warn | fail, which agent sandbox this host uses and why)."""
    try:
        choice = choose_sandbox(settings.sandbox)
    except DeskError as refused:  # CODEDESK_SANDBOX=bwrap where bubblewrap cannot run
        return "fail", str(refused)
    return ("ok" if choice.mode != UNCONFINED else "warn"), describe(choice)


def import_roots() -> dict[str, str]:
    """Where each of codedesk's top-level packages is imported from."""
    roots = {}
    for name in OWN_PACKAGES:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        roots[name] = str(Path(origin).parent) if origin else ""
    return roots


def import_problem(roots: dict[str, str]) -> str:
    """Empty when every package is codedesk's own (one folder holds them all); else why not."""
    missing = [name for name in OWN_PACKAGES if not roots.get(name)]
    if missing:
        return f"{', '.join(missing)} cannot be imported"
    parents = {str(Path(folder).parent) for folder in roots.values()}
    if len(parents) > 1:
        shown = ", ".join(f"{name} from {folder}" for name, folder in sorted(roots.items()))
        return f"the packages come from different places ({shown}): a namesake shadows codedesk"
    return ""
