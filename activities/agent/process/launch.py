"""How an agent is started: an environment without the owner's authority, and its confinement.

The agent gets the job's own variables (`CODEDESK_JOB`, `CODEDESK_TASK`, `CODEDESK_REPO`,
`CODEDESK_WORKTREE`, `CODEDESK_HOLD_SOCKET`, `CODEDESK_HOLD_COMMAND`, `PWD`, and for a command
agent `CODEDESK_MESSAGES`, its messages file, read-only in the sandbox), the variables
`agent_env` names (locale, terminal, model APIs), a home of the job's own seeded from the
owner's configuration of its CLI (activities/agent/process/cli_home.py) and git that has no
credential helper. It never gets the Temporal address or namespace, codedesk's settings,
`SSH_AUTH_SOCK` or the owner's tokens.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from activities.agent.process.agent_git import AgentGit
from activities.agent.process.cli_home import seed_cli_home
from activities.agent.process.hook_settings import hook_command
from activities.sandbox.bubblewrap import (
    BWRAP,
    SandboxLayout,
    bwrap_argv,
    forwarder_argv,
    forwarder_for,
    hidden_paths,
    proxy_environment,
    read_paths,
    reaper_argv,
    tool_paths,
)
from desk.agents.homes import home_variables
from desk.config.settings import DeskSettings
from desk.payloads.jobs import RunAgentInput

PRIVATE_HOME = "home"
SANDBOX_HOME = "agent-home"
"""The confined agent's home in the job's folder (bound writable at its own path)."""
GIT_CONFIG = "gitconfig"
AGENT_IDENTITY = "[user]\n\tname = codedesk agent\n\temail = agent@codedesk.invalid\n"
"""The agent's git identity when the repository names none (its global config)."""
NEVER_PASSED = ("CODEDESK_*", "SSH_AUTH_SOCK", "GIT_*", "GH_TOKEN", "GITHUB_TOKEN")
"""Never in the agent's environment, whatever `agent_env` says."""


@dataclass(frozen=True)
class Launch:
    """The command that starts the agent, its environment and how it is confined.

    `argv[command_at:]` is what runs inside the confinement (the agent, or its forwarder).
    """

    argv: list[str]
    env: dict[str, str]
    confinement: str
    command_at: int


@dataclass(frozen=True)
class JobPaths:
    """The job's own files the agent needs: its folder, the hold socket, the hook settings,
    the egress proxy's socket (None: the agent has no network) and its instructions."""

    folder: Path
    hold_socket: Path
    hook_settings: Path | None
    egress_socket: Path | None = None
    instructions: tuple[Path, ...] = ()
    """The job's copy of the standing instructions and its config, for the agent to read."""
    preset_env: dict[str, str] = field(default_factory=dict)
    """Variables the agent's preset sets for its CLI (desk/agents/presets.py `Preset.env`)."""
    messages_file: Path | None = None
    """A command agent's messages (`CODEDESK_MESSAGES`), which it may read, never write."""


def passed_environment(names: list[str], environ: dict[str, str] | None = None) -> dict[str, str]:
    """The variables of `environ` (the worker's own by default) that `names` (names or `*`
    globs) let through."""
    environ = dict(os.environ) if environ is None else environ

    def allowed(name: str) -> bool:
        if any(fnmatch.fnmatchcase(name, never) for never in NEVER_PASSED):
            return False
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in names)

    return {name: value for name, value in environ.items() if allowed(name)}


def program_found(program: str, search_path: str, cwd: str) -> bool:
    """Whether `program` can be started from `cwd` with this `PATH` (checked on the host)."""
    if "/" in program:
        target = Path(cwd, program)
        return target.is_file() and os.access(target, os.X_OK)
    return shutil.which(program, path=search_path) is not None


def plan_launch(
    settings: DeskSettings,
    mode: str,
    request: RunAgentInput,
    argv: list[str],
    paths: JobPaths,
    attempt: int,
    git: AgentGit | None,
) -> Launch:
    """The argv and environment of one attempt of the agent, in `mode` (bwrap or none)."""
    gitconfig = paths.folder / GIT_CONFIG
    gitconfig.write_text(AGENT_IDENTITY)
    env = passed_environment(settings.agent_env, dict(os.environ))
    env.update(paths.preset_env)
    env.update(
        {
            "PWD": request.worktree,
            "CODEDESK_TASK": request.task,
            "CODEDESK_JOB": str(request.number),
            "CODEDESK_REPO": request.repo,
            "CODEDESK_WORKTREE": request.worktree,
            "CODEDESK_HOLD_SOCKET": str(paths.hold_socket),
            # A command agent asks for a hold with it: `sh -c "$CODEDESK_HOLD_COMMAND"`.
            "CODEDESK_HOLD_COMMAND": hook_command(form="plain"),
            "CODEDESK_ATTEMPT": str(attempt),
            **({"CODEDESK_MESSAGES": str(paths.messages_file)} if paths.messages_file else {}),
            "CODEDESK_INTERRUPTED": "1" if attempt > 1 else "0",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_CONFIG_GLOBAL": str(gitconfig),
            # An empty helper clears every configured one (system, global, the clone's).
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "credential.helper",
            "GIT_CONFIG_VALUE_0": "",
        }
    )
    if mode != BWRAP:
        home = _private_home(paths.folder, settings)
        seed_cli_home(home, argv[0], os.environ, Path.home())
        env.update({"HOME": str(home), **home_variables(str(home))})
        confined = reaper_argv(argv)
        return Launch(confined, env, mode, len(confined) - len(argv))
    # A home of the job's own, seeded from the owner's configuration of the agent's CLI; the
    # seeded files are bound read-only over it, so the agent changes none of them.
    home = paths.folder / SANDBOX_HOME
    seeded = seed_cli_home(home, argv[0], os.environ, Path.home())
    env.update({"HOME": str(home), **home_variables(str(home))})
    hidden = hidden_paths(settings)
    tools = tool_paths(hidden, argv[0], env.get("PATH", ""))
    readable = [gitconfig, *tools, *read_paths(settings)]
    # The socket's folder, not the socket: the hold channel may bind it after this.
    readable.append(paths.hold_socket.parent)
    if paths.hook_settings is not None:
        readable.append(paths.hook_settings)
    readable += paths.instructions
    if paths.messages_file is not None:
        readable.append(paths.messages_file)
    writable: list[tuple[Path, Path]] = []
    if git is not None:
        writable, git_readable = git.binds()
        readable += git_readable
        env.update(git.environment())
    writable.append((home, home))
    readable += seeded
    if paths.egress_socket is not None:
        # The socket's folder again: the proxy binds it after this.
        readable.append(paths.egress_socket.parent)
        env.update(proxy_environment())
        argv = forwarder_argv(paths.egress_socket, argv, forwarder_for(env))
    layout = SandboxLayout(
        worktree=Path(request.worktree), writable=writable, readable=readable, hidden=hidden
    )
    confined = bwrap_argv(layout, argv)
    return Launch(confined, env, mode, len(confined) - len(argv))


def _private_home(folder: Path, settings: DeskSettings) -> Path:
    """Without a sandbox: a home of the job's own, with links to the paths the owner lets the
    agent read (only a convenience: an unconfined agent can read the real ones anyway)."""
    home = folder / PRIVATE_HOME
    home.mkdir(parents=True, exist_ok=True)
    real_home = Path.home()
    for path in read_paths(settings):
        if not path.is_relative_to(real_home) or path == real_home:
            continue
        link = home / path.relative_to(real_home)
        if link.is_symlink() or link.exists():
            continue
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(path)
    return home
