"""Bench: a codedesk job on a repository of real size against the floor on the same repository.

Usage: python bench/big_repo.py [--files N] [--jobs J] [--kept-worktrees K] [--json] [--out FILE]

It makes a bare origin of N small files (default 5,000; `--files 60000` for issue 49's figure)
with one `git fast-import`, 100 to a folder, starts its own headless dev server and an
in-process worker, adds the origin to the shelf, and clones it a second time for the floor
(bench/floor.py: one workflow, three activities: cut a new worktree, run the agent, rebase +
fast-forward + remove the worktree). Then J rounds (default 5), each a codedesk job and then a
floor job, so that both meet the same moments of the machine; both run job_overhead.py's agent,
which writes one file and commits it. Each is timed from its start to its end (a codedesk
job's report).

A codedesk job takes a worktree the clone keeps from an earlier job and makes it clean at the
clone's HEAD (activities/git/job_worktree.py): the first job cuts one, as the floor does every
time. The first round counts in the median like every other.

It prints each side's median and p90, the first codedesk job's time, and the ratio of the
medians against issue 49's target: at most 0.25x the floor at 60,000 files. `--kept-worktrees
0` measures codedesk as it was before it kept worktrees (a new one each job). It exits non-zero
unless every job integrated and each clone gained J commits.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Comparison, arguments, exit_with, git, isolate, report, running_desk
from floor import Floor
from job_overhead import AGENT, AGENT_COMMAND, SETTLE, Figures

from desk.payloads.jobs import JobOutcome, JobReport
from surfaces.clients.desk_client import DeskClient

REPO = "bench/big"
PER_FOLDER = 100
TARGET = 0.25
"""How many times the floor's median a job may take at 60,000 files (issue 49)."""
TARGET_FILES = 60_000


def make_big_origin(bare: Path, files: int) -> Path:
    """A bare repository whose `main` holds `files` small files, made by one fast-import."""
    git(bare.parent, "init", "--quiet", "--bare", "--initial-branch=main", str(bare))
    head = b"commit refs/heads/main\ncommitter Bench <bench@codedesk.invalid> 1700000000 +0000\n"
    parts = [head, b"data 7\ninitial\n"]
    for number in range(files):
        data = f"file {number}\n".encode()
        path = f"d{number // PER_FOLDER}/f{number % PER_FOLDER}.txt"
        parts.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
    subprocess.run(
        ["git", "-C", str(bare), "fast-import", "--quiet"], input=b"".join(parts), check=True
    )
    return bare


async def run(
    files: int, rounds: int, kept: int | None
) -> tuple[Figures, Figures, list[str], list[str]]:
    with tempfile.TemporaryDirectory(prefix="codedesk-bench-") as tmp:
        root = Path(tmp)
        isolate(root)
        origin = make_big_origin(root / "origin.git", files)
        floor_clone, floor_trees, agent = (
            root / "floor-clone",
            root / "floor-worktrees",
            root / "agent.py",
        )
        git(root, "clone", "--quiet", str(origin), str(floor_clone))
        floor_trees.mkdir()
        agent.write_text(AGENT)
        codedesk, floor = Figures(), Figures()
        reports: list[JobReport] = []
        overrides = {} if kept is None else {"kept_worktrees": kept}
        async with running_desk(root / "home", AGENT_COMMAND, **overrides) as (client, settings):
            desk = DeskClient(client, settings)
            clone = Path((await desk.add_repo(REPO, str(origin))).path)
            before = int(git(clone, "rev-list", "--count", "HEAD"))
            async with Floor(client, floor_clone, floor_trees, agent).working() as least:
                for index in range(rounds):
                    started = time.perf_counter()
                    number = await desk.start_job(REPO, f"bench file {index}")
                    reports.append(await desk.wait(number))
                    codedesk.runs_ms.append((time.perf_counter() - started) * 1000)
                    await asyncio.sleep(SETTLE)
                    started = time.perf_counter()
                    await least.once(index)
                    floor.runs_ms.append((time.perf_counter() - started) * 1000)
            added = int(git(clone, "rev-list", "--count", "HEAD")) - before
            floor_added = int(git(floor_clone, "rev-list", "--count", "HEAD")) - before
    problems = [
        f"job {report.number} ended {report.outcome.value}, not integrated: {report.reason}"
        for report in reports
        if report.outcome != JobOutcome.INTEGRATED
    ]
    if added != rounds:
        problems.append(f"the clone gained {added} commits, not {rounds}")
    if floor_added != rounds:
        problems.append(f"the floor's clone gained {floor_added} commits, not {rounds}")
    return codedesk, floor, [report.outcome.value for report in reports], problems


def comparisons(codedesk: Figures, floor: Figures, files: int) -> list[Comparison]:
    at_size = files >= TARGET_FILES
    return [
        Comparison(
            f"codedesk job on {files:,} files whose agent commits one file, "
            f"median of {len(codedesk.runs_ms)}",
            codedesk.median,
            "ms",
            "the floor on the same repository: a new worktree per job",
            floor.median,
            target=f"ratio <= {TARGET}x at {TARGET_FILES:,} files",
            met=codedesk.median <= TARGET * floor.median if at_size else None,
        ),
        Comparison(
            "the first codedesk job (none kept yet: it cuts a new worktree)",
            codedesk.runs_ms[0],
            "ms",
            "the floor's median",
            floor.median,
        ),
    ]


def more(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--files", type=int, default=5_000, help="files in the repository (default 5000)"
    )
    parser.add_argument(
        "--kept-worktrees",
        type=int,
        help="the desk's kept_worktrees (default: the setting's; 0: a new worktree each job)",
    )


def main() -> int:
    args = arguments(__doc__, "rounds: a codedesk job and a floor job each (default 5)", more, 5)
    if args.files < 1:
        raise SystemExit("--files must be at least 1")
    codedesk, floor, outcomes, problems = asyncio.run(
        run(args.files, args.jobs, args.kept_worktrees)
    )
    ratio = codedesk.median / floor.median
    figures = {
        "files": args.files,
        "jobs": args.jobs,
        "kept_worktrees": args.kept_worktrees,
        "ok": not problems,
        "problems": problems,
        "outcomes": outcomes,
        "codedesk_median_ms": round(codedesk.median, 1),
        "codedesk_p90_ms": round(codedesk.p90, 1),
        "codedesk_first_ms": round(codedesk.runs_ms[0], 1),
        "floor_median_ms": round(floor.median, 1),
        "floor_p90_ms": round(floor.p90, 1),
        "floor_ratio": round(ratio, 3),
        "codedesk_runs_ms": [round(ms, 1) for ms in codedesk.runs_ms],
        "floor_runs_ms": [round(ms, 1) for ms in floor.runs_ms],
    }
    text = (
        f"{args.jobs} rounds on {args.files:,} files.\n"
        f"codedesk job: median {codedesk.median:.0f} ms, p90 {codedesk.p90:.0f} ms, "
        f"first {codedesk.runs_ms[0]:.0f} ms; floor: median {floor.median:.0f} ms, "
        f"p90 {floor.p90:.0f} ms; codedesk {ratio:.2f}x the floor"
    )
    report("big_repo", figures, comparisons(codedesk, floor, args.files), args, text)
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 0 if not problems else 1


if __name__ == "__main__":
    exit_with(main)
