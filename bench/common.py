"""What the bench scripts share: their command line, a private environment, a bare origin, a
dev server with a worker, and how a script exits.

The scripts import it as `common`: run as `python bench/<script>.py`, Python puts this folder
first on `sys.path`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import traceback
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

from temporalio.client import Client

from desk.config.settings import DeskSettings, load_settings
from desk.errors import ServerError
from workers.desk_handle import configure_desk
from workers.devserver import DevServer, free_port
from workers.temporal.client import connect
from workers.worker import build_worker

IDENTITY = ("-c", "user.name=codedesk bench", "-c", "user.email=bench@codedesk.invalid")
# The same options codedesk's host-side git uses, so both sides run the same git.
SAFE = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


def arguments(
    doc: str | None,
    jobs_help: str,
    more: Callable[[argparse.ArgumentParser], None] | None = None,
    jobs: int = 20,
) -> argparse.Namespace:
    """`--jobs N` (at least 1, default `jobs`), `--json`, `--out FILE`, and what `more` adds;
    the usage line is `doc`'s first line."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--jobs", type=int, default=jobs, help=jobs_help)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--out", type=Path, help="also write the figures as JSON to this file")
    if more is not None:
        more(parser)
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    return args


@dataclass
class Comparison:
    """One figure beside the baseline measured in the same run, and the target if there is one."""

    what: str
    figure: float
    unit: str
    baseline_what: str
    baseline: float
    target: str = ""
    met: bool | None = None

    @property
    def ratio(self) -> float:
        return self.figure / self.baseline if self.baseline else 0.0

    def line(self) -> str:
        target = ""
        if self.target:
            verdict = "" if self.met is None else (": met" if self.met else ": NOT met")
            target = f" [target {self.target}{verdict}]"
        return (
            f"{self.what}: {self.figure:.0f} {self.unit}; baseline, {self.baseline_what}: "
            f"{self.baseline:.0f} {self.unit}; ratio {self.ratio:.2f}x{target}"
        )

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": round(self.ratio, 2)}


def report(
    bench: str,
    figures: dict[str, Any],
    comparisons: list[Comparison],
    args: argparse.Namespace,
    text: str = "",
) -> None:
    """Print the figures (text with each comparison, or JSON) and write them to `--out`.

    The JSON carries what bench/report.py needs for docs/performance.md: the comparisons, when
    the run was, the machine's core count and its load average.
    """
    document = {
        **figures,
        "bench": bench,
        "comparisons": [comparison.as_json() for comparison in comparisons],
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "load": [round(load, 2) for load in os.getloadavg()],
    }
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(document, indent=2) + "\n")
    if args.json:
        print(json.dumps(document, indent=2))
        return
    if text:
        print(text)
    for comparison in comparisons:
        print(comparison.line())


def wall_times_ms(argv: list[str], runs: int, env: dict[str, str] | None = None) -> list[float]:
    """Wall times in ms of `runs` runs of a command, each waited for; output is discarded."""
    return [wall for wall, _ in run_times_ms(argv, runs, env)]


def run_times_ms(
    argv: list[str], runs: int, env: dict[str, str] | None = None
) -> list[tuple[float, float]]:
    """(wall, CPU) times in ms of `runs` runs of a command; output is discarded.

    CPU is the process's own user and system time (all its threads): on a machine others load,
    it moves far less than the wall time, so it says what the command itself costs.
    """
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        child = subprocess.Popen(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _, _, usage = os.wait4(child.pid, 0)
        wall = (time.perf_counter() - started) * 1000
        child.returncode = 0  # reaped by wait4: Popen must not wait for it again
        times.append((wall, (usage.ru_utime + usage.ru_stime) * 1000))
    return times


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def isolate(root: Path) -> None:
    """The bench's settings are its own: no CODEDESK_* variable or codedesk.toml leaks in."""
    for name in [name for name in os.environ if name.startswith("CODEDESK_")]:
        del os.environ[name]
    (root / "codedesk.toml").write_text("")
    os.environ["CODEDESK_CONFIG"] = str(root / "codedesk.toml")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *SAFE, *args], cwd=cwd, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {cwd}: {done.stderr.strip()}")
    return done.stdout.strip()


def make_origin(root: Path) -> Path:
    """A bare origin with one commit on `main`."""
    seed = root / "seed"
    seed.mkdir(parents=True)
    (seed / "README.md").write_text("# bench\n")
    git(seed, "init", "--quiet", "--initial-branch=main")
    git(seed, "add", "-A")
    git(seed, *IDENTITY, "commit", "--quiet", "-m", "initial")
    origin = root / "origin.git"
    git(root, "clone", "--quiet", "--bare", str(seed), str(origin))
    return origin


async def start_server(home: Path, attempts: int = 3) -> DevServer:
    """A headless dev server on free ports; tries new ports if another process took them."""
    for attempt in range(1, attempts + 1):
        server = DevServer(home, free_port(), free_port(), headless=True)
        try:
            await server.start()
            return server
        except ServerError as error:
            if attempt == attempts:
                raise
            print(f"bench: retrying the server on other ports ({error})", file=sys.stderr)
    raise AssertionError("unreachable")


@asynccontextmanager
async def running_desk(
    home: Path, agent_command: str, **overrides: Any
) -> AsyncIterator[tuple[Client, DeskSettings]]:
    """A dev server in `home`, settings on a fresh task queue running `agent_command` (and any
    other settings in `overrides`), and an in-process worker; the worker stops on leaving, then
    the server."""
    server = await start_server(home)
    try:
        settings = load_settings(
            home=home,
            shelf=home / "shelf",
            temporal_address=server.address,
            namespace="default",
            task_queue=f"bench-{uuid.uuid4().hex[:8]}",
            agent_command=agent_command,
            **overrides,
        )
        client = await connect(settings)
        async with build_worker(client, settings):
            await configure_desk(client, settings)  # the worker polls: commands need one
            yield client, settings
    finally:
        server.stop()


def exit_with(main: Callable[[], int]) -> NoReturn:
    """Run `main` and leave with its exit code, 1 on an exception."""
    try:
        code = main()
    except SystemExit as stop:  # argparse's usage errors and --help
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
    except Exception:
        traceback.print_exc()
        code = 1
    # The Temporal SDK sometimes aborts at interpreter exit (temporalio/sdk-python#300); leave
    # with os._exit after flushing so a finished run never reports a crash code.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
