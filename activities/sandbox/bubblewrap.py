"""The agent's sandbox: bubblewrap or none, chosen once per worker, and the argv that runs it.

With bubblewrap the agent sees the host's root file system read-only, its worktree (and the few git
paths its branch needs) writable, a private `/tmp`, home and `/run`, its own `/proc` and a minimal
`/dev`, and none of codedesk's home, the shelf or the owner's home except what is bound back in. It
runs as the last process of its own PID namespace, so the whole tree dies when the agent exits or
the worker dies. Its network namespace has only loopback: with the network on, the agent reaches out
through the worker's egress proxy. Without bubblewrap the agent runs under
`activities/sandbox/reaper.py`, which gives the same end of life but confines nothing.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from desk.config.settings import DeskSettings, config_file
from desk.errors import SandboxError

BWRAP = "bwrap"
UNCONFINED = "none"
REAPER = Path(__file__).with_name("reaper.py")
FORWARDER = Path(__file__).with_name("egress_forwarder.py")
PERL_FORWARDER = FORWARDER.with_suffix(".pl")
SYSTEM_PERL = Path("/usr/bin/perl")
"""The Perl the forwarder runs on when the host has it: where a sandbox never hides it."""
EGRESS_PORT = 3128
"""Where the forwarder listens inside the sandbox (its own network namespace: no clash)."""
SOURCE_ROOT = Path(__file__).resolve().parents[2]
"""Where codedesk's packages are (a checkout or site-packages): the hook runs from there."""
PROBE_TIMEOUT = 10.0
KEPT_RUN_PATHS = ("/run/systemd/resolve",)
"""Paths under the hidden `/run` the agent still reads: `/etc/resolv.conf` may point there."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SandboxChoice:
    """Which confinement is in force on this worker, and why (logged at worker start)."""

    mode: str
    why: str


@dataclass
class SandboxLayout:
    """What one agent may see: paths bound writable or read-only (`source -> inside`)."""

    worktree: Path
    writable: list[tuple[Path, Path]] = field(default_factory=list)
    readable: list[Path] = field(default_factory=list)
    hidden: list[Path] = field(default_factory=list)


def choose_sandbox(setting: str) -> SandboxChoice:
    """The sandbox for `CODEDESK_SANDBOX=setting`; `bwrap` that cannot work is an error."""
    if setting == UNCONFINED:
        return SandboxChoice(UNCONFINED, "CODEDESK_SANDBOX=none: the agent runs unconfined")
    problem = _bwrap_problem()
    if not problem:
        return SandboxChoice(BWRAP, f"bubblewrap works on this host ({shutil.which(BWRAP)})")
    if setting == BWRAP:
        raise SandboxError(
            f"CODEDESK_SANDBOX=bwrap, but {problem}. Install bubblewrap (apt-get install "
            "bubblewrap), allow unprivileged user namespaces, or set CODEDESK_SANDBOX=none "
            "to run agents unconfined."
        )
    return SandboxChoice(UNCONFINED, f"{problem}: the agent runs unconfined")


def describe(choice: SandboxChoice) -> str:
    """The line a starting worker prints: which sandbox is in force and why."""
    return f"Agent sandbox: {choice.mode} ({choice.why})."


def log_choice(choice: SandboxChoice) -> None:
    """Log which sandbox is in force and why (a warning when agents run unconfined)."""
    log.log(logging.INFO if choice.mode == BWRAP else logging.WARNING, describe(choice))


@functools.cache
def _bwrap_problem() -> str:
    """Empty when `bwrap` runs a command here the way agents run; else what went wrong."""
    path = shutil.which(BWRAP)
    if path is None:
        return "bubblewrap (bwrap) is not installed"
    argv = [path, *_base_options(), "true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap could not be run: {error}"
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        return f"bwrap fails on this host ({detail[-1] if detail else done.returncode})"
    return ""


PRIVATE_DIRECTORIES = ("/tmp", "/run")
"""Directories the sandbox replaces by empty ones of its own."""


def _base_options() -> list[str]:
    # The network namespace is always its own (only loopback): the agent's way out, when it
    # has one, is the worker's egress proxy (activities/sandbox/egress_proxy.py) through a Unix
    # socket.
    options = [
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--unshare-net",
        "--die-with-parent",
    ]  # fmt: skip
    if os.geteuid() == 0:
        # Root keeps every capability inside by default, and could unmount what hides things.
        options += ["--cap-drop", "ALL"]
    return options


def bwrap_argv(layout: SandboxLayout, argv: list[str]) -> list[str]:
    """`bwrap ... -- argv`: parents are mounted before what lies inside them, so the
    deeper bind wins (a writable worktree admin dir inside a read-only `.git`)."""
    mounts: list[tuple[int, int, list[str]]] = []

    def add(inside: Path, order: int, options: list[str]) -> None:
        mounts.append((len(inside.parts), order, options))

    for path in [Path("/run"), *layout.hidden]:
        add(path, 0, ["--tmpfs", str(path)])
    for kept in KEPT_RUN_PATHS:
        add(Path(kept), 1, ["--ro-bind-try", kept, kept])
    for path in layout.readable:
        add(path, 1, ["--ro-bind", str(path), str(path)])
    add(layout.worktree, 2, ["--bind", str(layout.worktree), str(layout.worktree)])
    for source, inside in layout.writable:
        add(inside, 2, ["--bind", str(source), str(inside)])
    config = config_file()
    if config is not None and config.is_file():
        add(config.resolve(), 3, ["--ro-bind", "/dev/null", str(config.resolve())])
    options = _base_options()
    for _, _, mount in sorted(mounts, key=lambda item: (item[0], item[1])):
        options += mount
    program = shutil.which(BWRAP) or BWRAP
    return [program, *options, "--chdir", str(layout.worktree), "--", *argv]


def reaper_argv(argv: list[str]) -> list[str]:
    """The agent under the reaper, which takes its whole tree down with it; it runs nothing
    unless this process (the worker that starts it) is its parent once its death signal is set.
    `-S`: the reaper needs no site packages, and the agent starts sooner without them."""
    return [sys.executable, "-I", "-S", str(REAPER), "--parent", str(os.getpid()), "--", *argv]


def forwarder_argv(egress_socket: Path, argv: list[str], forwarder: list[str]) -> list[str]:
    """The agent as `forwarder` becomes it, once that relays its proxy port to the worker."""
    return [*forwarder, str(egress_socket), str(EGRESS_PORT), "--", *argv]


def forwarder_for(env: dict[str, str]) -> list[str]:
    """The Perl forwarder where the host has the system Perl: it starts in 1-2 ms, against
    8-12 ms for Python, on every networked agent's start (issue 13). The Python one elsewhere,
    and where the agent's environment has `PERL5OPT`, which would have Perl load modules (from
    anywhere, maybe from where the sandbox hides) before the script runs."""
    usable = _system_perl_usable() and "PERL5OPT" not in env
    return perl_forwarder() if usable else python_forwarder()


def python_forwarder() -> list[str]:
    """`-I`: no `PYTHON*` variable applies; `-S`: no site packages, and Python starts in half
    the time."""
    return [sys.executable, "-I", "-S", str(FORWARDER)]


def perl_forwarder() -> list[str]:
    return [str(SYSTEM_PERL), str(PERL_FORWARDER)]


@functools.cache
def _system_perl_usable() -> bool:
    return os.access(SYSTEM_PERL, os.X_OK) and PERL_FORWARDER.is_file()


def proxy_environment() -> dict[str, str]:
    """The variables that send the agent's HTTP(S) clients through the forwarder."""
    url = f"http://127.0.0.1:{EGRESS_PORT}"
    names = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY")
    env = {name: url for name in names} | {name.lower(): url for name in names}
    return env | {"NO_PROXY": "", "no_proxy": ""}


def hidden_paths(settings: DeskSettings) -> list[Path]:
    """What the agent must not read: the owner's home, codedesk's home and the shelf (those
    that exist: a missing one has nothing to hide, and bwrap cannot cover it)."""
    paths = {Path.home().resolve(), settings.home.resolve(), settings.shelf_dir.resolve()}
    return sorted(path for path in paths if path.is_dir())


def tool_paths(hidden: list[Path], program: str, search_path: str) -> list[Path]:
    """Read-only binds for what must run inside although it lives in a hidden directory:
    the Python and codedesk's own code (the hook runs on them), and the agent's program.

    The program is bound where `PATH` finds it and where its link leads, as its install
    root (for `.../x/bin/tool`, `.../x`, unless `x` sits right in a hidden directory, like
    `~/.local`; for `.../node_modules/.bin/tool`, `.../node_modules`). Other programs under a
    hidden directory stay hidden: add them to `sandbox_read_paths`.
    """
    # The sandbox's own /tmp and /run are empty too: codedesk installed under /tmp (a CI
    # checkout) must be bound back like one under a hidden home.
    hidden = [*hidden, *(Path(path).resolve() for path in PRIVATE_DIRECTORIES)]
    wanted = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), SOURCE_ROOT}
    found = shutil.which(program, path=search_path) if "/" not in program else program
    if found:
        where = Path(found).absolute()
        wanted |= {_install_root(where, hidden), _install_root(where.resolve(), hidden)}
    paths = set()
    for path in wanted:
        real = path.resolve()
        if real.exists() and any(real.is_relative_to(h) and real != h for h in hidden):
            paths.add(real)
    return sorted(paths)


def _install_root(path: Path, hidden: list[Path]) -> Path:
    folder = path.parent
    if folder.name == "bin" and folder.parent.parent not in hidden:
        return folder.parent
    if folder.name == ".bin" and folder.parent.name == "node_modules":
        # An npm install's own folder (`npm install --prefix`): the program's packages, its
        # platform binary among them (codex's), are beside it in node_modules.
        return folder.parent
    return folder


def read_paths(settings: DeskSettings) -> list[Path]:
    """The owner's `sandbox_read_paths` that exist, expanded."""
    paths = (Path(item).expanduser() for item in settings.sandbox_read_paths)
    return [path for path in paths if path.exists()]
