"""Running the `codedesk` console script as a user does, and waiting on what it starts; which
packages a command imported."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

from desk.config.settings import DeskSettings
from tests.helpers.waiting import PATIENCE

CODEDESK = str(Path(sys.executable).parent / "codedesk")

Cli = Callable[..., Awaitable[subprocess.CompletedProcess[str]]]


_unconfined_why: str | None = None
"""Why the running test's agents run unconfined (its `unconfined` marker), or None."""


@contextlib.contextmanager
def unconfined_scripts(why: str | None) -> Iterator[None]:
    """While a test runs: the console scripts and workers it starts run agents unconfined
    when `why` says why (tests/conftest.py sets it from the test's marker)."""
    global _unconfined_why
    _unconfined_why = why
    try:
        yield
    finally:
        _unconfined_why = None


def cli_env(**values: str) -> dict[str, str]:
    """This process's environment without any CODEDESK_* variable, plus `values`: agents run
    in the product's default sandbox (auto), unless the test is marked `unconfined`."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("CODEDESK_")}
    if _unconfined_why is not None:
        env["CODEDESK_SANDBOX"] = "none"
    env.update(values)
    return env


def settings_env(settings: DeskSettings, **extra: str) -> dict[str, str]:
    """The environment under which the console script sees the same desk as `settings`."""
    env = cli_env(
        CODEDESK_HOME=str(settings.home),
        CODEDESK_TEMPORAL_ADDRESS=settings.temporal_address,
        CODEDESK_NAMESPACE=settings.namespace,
        CODEDESK_TASK_QUEUE=settings.task_queue,
        CODEDESK_HEARTBEAT_TIMEOUT="2s",
        CODEDESK_SANDBOX=settings.sandbox,
        CODEDESK_SANDBOX_READ_PATHS=",".join(settings.sandbox_read_paths),
        CODEDESK_GIT_HEARTBEAT_TIMEOUT=f"{settings.git_heartbeat_timeout.total_seconds():g}s",
        CODEDESK_STICKY_TIMEOUT=f"{settings.sticky_timeout.total_seconds():g}s",
    )
    env.update(extra)
    return env


async def run_cli(
    env: dict[str, str], *args: str, cwd: Path, timeout: float = PATIENCE
) -> subprocess.CompletedProcess[str]:
    """Run the real console script in a thread, so an in-process worker keeps working."""
    return await asyncio.to_thread(
        subprocess.run,
        [CODEDESK, *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def shown(result: subprocess.CompletedProcess[str]) -> str:
    return f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"


def assert_refused(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """A refusal: non-zero, one line on stderr with each of `words`, no traceback."""
    assert result.returncode != 0, shown(result)
    assert result.returncode not in (134, 139), shown(result)
    assert "Traceback" not in result.stderr + result.stdout, shown(result)
    reason = result.stderr.strip()
    assert reason.count("\n") == 0, shown(result)
    for word in words:
        assert word in reason, shown(result)
    return reason


def started_number(result: subprocess.CompletedProcess[str]) -> int:
    found = re.search(r"^job (\d+) started", result.stdout, re.MULTILINE)
    assert found, shown(result)
    return int(found.group(1))


def pid_dead(pid: int) -> bool:
    """Gone, or a zombie waiting to be reaped (it can do nothing any more)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2 :].split()[0] == "Z"


def read_pid(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text else None


async def watch_output(
    number: int, env: dict[str, str], cwd: Path, seen_enough: Callable[[str], bool], then: Path
) -> tuple[str, str]:
    """Run `codedesk watch NUMBER` until a line it printed is `seen_enough`, then make the file
    `then` (the agent's cue to finish) and read the rest; its output and errors. A watch that
    ends early or fails fails the test."""
    from tests.helpers.waiting import awaited

    process = await asyncio.create_subprocess_exec(
        CODEDESK,
        "watch",
        str(number),
        env=env,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    seen: list[str] = []
    try:
        while not any(seen_enough(line) for line in seen):
            line = await awaited(process.stdout.readline(), "process.stdout.readline()")
            assert line, f"watch ended early: {seen}"
            seen.append(line.decode())
        then.touch()
        rest, errors = await awaited(process.communicate(), "process.communicate()")
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    output = "".join(seen) + rest.decode()
    assert process.returncode == 0, output + errors.decode()
    return output, errors.decode()


def profiled(stderr: str) -> set[str]:
    """The modules Python's import profiler (`PYTHONPROFILEIMPORTTIME=1`) saw imported."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


HEAVY = ("temporalio", "discord", "rich", "git", "aiohttp", "pydantic_settings")
"""What `--help` and a usage error must never load: each costs tens of milliseconds or more."""


def imported(args: list[str], home: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """Run `codedesk ARGS` and return its result and the top-level packages it imported."""
    env = cli_env(CODEDESK_HOME=str(home), PYTHONPROFILEIMPORTTIME="1")
    done = subprocess.run(
        [CODEDESK, *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    names = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return done, names
