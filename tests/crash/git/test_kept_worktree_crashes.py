"""A worker SIGKILLed while a kept worktree of 60,000 files is made clean for the next job: in the
sweep of what the last job left (20,000 ignored files), and in the checkout that rewrites the
60,000 files the last job touched. The job ends once, integrated, its agent run once in a clean
worktree; the job after it finds its worktree clean too."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from temporalio.client import Client

from activities.jobs.worktrees import WORKTREE_RECEIPT
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from tests.crash.big_repos import Template, entries, kill_when, origin_from
from tests.crash.crashes import REPO, ResumeClock, assert_no_leftovers
from tests.helpers.jobs.big_clone_jobs import (
    a_later_job_runs,
    assert_clean_at,
    big_desk,
    subjects,
    unconfined_env,
    wait_report,
)
from tests.helpers.processes import StartWorker
from tests.helpers.repos import git

pytestmark = pytest.mark.slow

IGNORED_DIRS = 200
IGNORED_PER_DIR = 100

IDENTITY = "-c user.name=agent -c user.email=agent@codedesk.invalid"

LEAVER = f"""\
set -e
IDENTITY="{IDENTITY}"
printf 'build/\\n' > .gitignore
# Git compares whole seconds of ctime: a touch in the second the worktree was checked out is
# rightly no change to the next checkout, so the formatter below runs in a later second.
index="$(git rev-parse --git-path index)"
while [ "$(stat -c %Z .gitignore)" -le "$(stat -c %Y "$index")" ]; do
  sleep 0.1 && touch .gitignore
done
# A formatter's run: every tracked file touched (its ctime), none changed.
git ls-files -z | xargs -0 chmod 644
# A build's output, ignored: 20,000 files that git status never shows.
for dir in $(seq {IGNORED_DIRS}); do
  mkdir -p build/$dir
  (cd build/$dir && touch $(seq -f 'o%g' {IGNORED_PER_DIR}))
done
git add .gitignore && git $IDENTITY commit --quiet -m ignore
"""
"""The first job's agent: it leaves a worktree git calls clean, with work for the next take."""


def checker(runs: Path, name: str) -> str:
    """An agent that fails unless its worktree is clean (nothing untracked or ignored, no file
    flagged in the index, no build output), notes each run in `runs` and commits what its
    `.git` file names (the admin dir: which worktree it was given)."""
    return f"""\
set -e
echo run >> {runs}
test -z "$(git status --porcelain --ignored --untracked-files=all)"
test ! -e build
test -z "$(git ls-files -v | grep -v '^H ' || true)"
cat .git > {name}.txt
git add {name}.txt && git {IDENTITY} commit --quiet -m {name}
"""


def command(folder: Path, name: str, text: str) -> str:
    script = folder / f"{name}.sh"
    script.write_text(text)
    return f"sh {script}"


def ctime(path: Path) -> int:
    try:
        return path.lstat().st_ctime_ns
    except OSError:
        return 0


@pytest.mark.parametrize("point", ["in-its-sweep", "in-its-checkout"])
async def test_a_worker_killed_while_a_kept_worktree_is_made_clean_integrates_once_and_clean(
    settings: DeskSettings,
    client: Client,
    big_template: Template,
    tmp_path: Path,
    start_worker: StartWorker,
    resume_clock: ResumeClock,
    point: str,
) -> None:
    template = big_template
    origin = origin_from(template, tmp_path)
    worker, desk, clone = await big_desk(settings, client, origin, start_worker)
    first = await desk.start_job(
        REPO, "leave things", agent_command=command(tmp_path, "leave", LEAVER)
    )
    report = await wait_report(desk, first)
    assert report.outcome == JobOutcome.INTEGRATED, report
    trees = settings.shelf_dir / ".worktrees" / "acme" / "api"
    kept = trees / ".kept" / str(first)
    assert entries(kept / "build") == IGNORED_DIRS, "the first job's worktree is kept"
    half, _ = template.path(0.5)
    touched = ctime(kept / half)

    runs = tmp_path / "runs-second"
    second = await desk.start_job(
        REPO, "look", agent_command=command(tmp_path, "second", checker(runs, "second"))
    )
    path = trees / str(second)
    receipt = settings.jobs_dir / str(second) / WORKTREE_RECEIPT

    def seen() -> str:
        return (
            f"{path.name} exists: {path.exists()}, its worktree receipt: {receipt.exists()}, "
            f"{entries(path / 'build')} build folders, the file {half} changed at "
            f"{ctime(path / half)} (the last job touched it at {touched}); "
            f"kept now: {sorted(os.listdir(trees / '.kept'))}"
        )

    def sweeping() -> bool:
        return 0 < entries(path / "build") < IGNORED_DIRS // 2

    def checking_out() -> bool:
        return ctime(path / half) not in (0, touched)

    if point == "in-its-sweep":
        await kill_when(sweeping, "the sweep halfway", worker, seen)
    else:
        await kill_when(checking_out, "the checkout halfway", worker, seen)
    resume_clock.restarted()
    assert not receipt.exists(), "the kill must land inside the take-out"
    if point == "in-its-sweep":
        assert (path / "build").exists(), "the kill must land inside the sweep"
    resume_clock.note(f"{point}: killed with {entries(path / 'build')} build folders left")
    start_worker(unconfined_env(settings))

    report = await wait_report(desk, second)
    await resume_clock.report_job(client, second)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert [commit.subject for commit in report.commits] == ["second"], report
    assert runs.read_text() == "run\n", "the agent ran once"
    admin = clone / ".git" / "worktrees" / str(first)
    assert (clone / "second.txt").read_text() == f"gitdir: {admin}\n", "the kept one, made clean"
    assert_clean_at(clone, report.head)
    assert subjects(clone)[:3] == ["second", "ignore", "initial"]

    runs = tmp_path / "runs-third"
    third = await desk.start_job(
        REPO, "look again", agent_command=command(tmp_path, "third", checker(runs, "third"))
    )
    report = await wait_report(desk, third)
    assert report.outcome == JobOutcome.INTEGRATED, report
    assert (clone / "third.txt").read_text() == f"gitdir: {admin}\n"
    assert not os.path.lexists(path)
    assert_no_leftovers(clone)
    await a_later_job_runs(unconfined_env(settings), settings.home, client, tmp_path)
    assert git(clone, "log", "-1", "--format=%s") == "later"
