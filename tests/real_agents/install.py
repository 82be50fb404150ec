"""Installing a real agent CLI once into a cache outside the repository, for the tests.

The cache is `$CODEDESK_AGENT_CACHE` or `~/.cache/codedesk-agents`; each CLI gets a folder of
its own, installed on first use and reused after (a lock keeps parallel test processes from
installing the same CLI twice); a test of the registry's newest release asks the registry for
its version and installs it into a folder of its own (`<name>-newest`), unless that version is
the pinned one (`release_cli`). Where the package manager is missing or the registry cannot be
reached, the test is skipped with the reason; any other install failure fails the test. A test
process asks each CLI for its version, and the registry for each newest release, once.
"""

from __future__ import annotations

import fcntl
import functools
import os
import pwd
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from desk.agents.presets import AGENT_PRESETS

INSTALL_TIMEOUT = 900
UNREACHABLE = (
    "ENOTFOUND",
    "EAI_AGAIN",
    "ECONNREFUSED",
    "ETIMEDOUT",
    "ECONNRESET",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
    "No matching distribution found",
)


def agent_cache() -> Path:
    """Where real agent CLIs are installed for the tests (outside any repository): under the
    user's own home, not `$HOME`, which a test points at an agent's home of its own."""
    given = os.environ.get("CODEDESK_AGENT_CACHE")
    if given:
        return Path(given).expanduser()
    return Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "codedesk-agents"


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


_PROVEN: set[tuple[Path, str]] = set()
"""The (program, version) pairs this test process has seen answer `--version`: each CLI is
asked once per process, not once per test (aider's answer alone costs two seconds)."""


def _works(program: Path, version: str) -> bool:
    """Whether `program --version` answers with a version that starts with `version`."""
    if (program, version) in _PROVEN:
        return True
    try:
        done = subprocess.run(
            [str(program), "--version"],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError:
        return False
    found = re.search(r"\d+(?:\.\d+)+", done.stdout + done.stderr)
    works = done.returncode == 0 and found is not None and found.group().startswith(version)
    if works:
        _PROVEN.add((program, version))
    return works


def _install(argv: list[str], what: str, cwd: Path) -> None:
    done = subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if done.returncode == 0:
        return
    output = (done.stdout + done.stderr)[-3000:]
    if any(sign in output for sign in UNREACHABLE):
        pytest.skip(f"{what} could not be installed, the registry is unreachable:\n{output}")
    pytest.fail(f"{what} could not be installed ({' '.join(argv)}):\n{output}")


def npm_cli(name: str, package: str, program: str) -> Path:
    """The `program` of npm `package` (e.g. `@openai/codex@0.171`), installed under the cache
    (again when the installed version is not the one asked for)."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed, so the real {name} CLI cannot be installed")
    version = package.rpartition("@")[2]
    folder = agent_cache() / name
    binary = folder / "node_modules" / ".bin" / program
    with _locked(folder):
        if not _works(binary, version):
            npm = shutil.which("npm") or "npm"
            _install(
                [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", package],
                f"npm package {package}",
                folder,
            )
        if not _works(binary, version):
            pytest.fail(f"{binary} was installed from {package} but `--version` fails")
    return binary


def pip_cli(name: str, package: str, program: str) -> Path:
    """The `program` of PyPI `package` (e.g. `aider-chat==0.86.2`), installed into a venv of its
    own under the cache (again when the installed version is not the one asked for)."""
    version = package.rpartition("==")[2]
    folder = agent_cache() / name
    binary = folder / "venv" / "bin" / program
    with _locked(folder):
        if not _works(binary, version):
            if not (folder / "venv" / "bin" / "python").exists():
                _install([sys.executable, "-m", "venv", str(folder / "venv")], "a venv", folder)
            pip = str(folder / "venv" / "bin" / "pip")
            _install([pip, "install", "--quiet", package], f"PyPI package {package}", folder)
        if not _works(binary, version):
            pytest.fail(f"{binary} was installed from {package} but `--version` fails")
    return binary


def _newest(argv: list[str], what: str, pattern: str) -> str:
    """The newest version the registry has, asked with `argv`; skips the test when the
    registry cannot be reached."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"the registry could not be asked for {what}'s newest version: {error}")
    found = re.search(pattern, done.stdout)
    if done.returncode != 0 or found is None:
        output = (done.stdout + done.stderr)[-2000:]
        pytest.skip(f"the registry did not say {what}'s newest version:\n{output}")
    return found.group(1)


@functools.cache
def newest_npm(package: str) -> str:
    """The newest version of npm `package` (`npm view PACKAGE version`)."""
    if shutil.which("npm") is None:
        pytest.skip(f"npm is not installed, so {package}'s newest version cannot be asked")
    return _newest([shutil.which("npm") or "npm", "view", package, "version"], package, r"(\S+)")


@functools.cache
def newest_pypi(package: str) -> str:
    """The newest version of PyPI `package` (`pip index versions PACKAGE`)."""
    argv = [sys.executable, "-m", "pip", "index", "versions", package]
    return _newest(argv, package, rf"(?m)^{re.escape(package)} \((\S+)\)")


@dataclass(frozen=True)
class Published:
    """Where a preset's CLI is published: its registry, package and program."""

    registry: str  # "npm" or "pypi"
    package: str
    program: str


PUBLISHED = {
    "claude": Published("npm", "@anthropic-ai/claude-code", "claude"),
    "codex": Published("npm", "@openai/codex", "codex"),
    "opencode": Published("npm", "opencode-ai", "opencode"),
    "aider": Published("pypi", "aider-chat", "aider"),
}


def release_cli(name: str, release: str = "pinned", *, alone: bool = True) -> Path:
    """Preset `name`'s CLI at `release`: "pinned" (the preset's proven version) or "newest" (the
    registry's). A newest release that is the pinned version shares the pinned install, and
    where that CLI is all a test's releases change (`alone`), its newest case is skipped: the
    pinned case runs the very same program, and a second run proves nothing more."""
    published = PUBLISHED[name]
    version, folder = AGENT_PRESETS[name].proven_version, name
    if release == "newest":
        asked = newest_npm if published.registry == "npm" else newest_pypi
        newest = asked(published.package)
        if newest == version and alone:
            pytest.skip(
                f"{published.package}'s newest release is {newest}, the pinned version: "
                "the pinned case runs it"
            )
        if newest != version:
            version, folder = newest, f"{name}-newest"
    if published.registry == "npm":
        return npm_cli(folder, f"{published.package}@{version}", published.program)
    return pip_cli(folder, f"{published.package}=={version}", published.program)
