"""A sandboxed agent's hand-back killed halfway (SIGKILL while its objects are copied into the
clone, or after them): the next attempt's `prepare` takes the branch back whole, once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from activities.agent.process.agent_git import AgentGit, agent_git, prepare
from desk.payloads.jobs import Worktree
from tests.helpers.agent_runs.agent_git import a_job, agent_branch_at
from tests.helpers.repos import git
from tests.helpers.waiting import PATIENCE

ROOT = Path(__file__).parents[2]
FILES = 20_000
WATCH = 0.002
"""Seconds between two looks at the clone's objects while the hand-back copies them."""

TAKE_BACK = """
import sys
from pathlib import Path
from activities.agent.process.agent_git import agent_git, take_back
from desk.payloads.jobs import Worktree
folder, worktree = sys.argv[1], Worktree.model_validate_json(sys.argv[2])
take_back(agent_git(Path(folder), worktree))
"""


def agent_commit(tmp_path: Path, layout: AgentGit, base: str) -> str:
    """A commit of FILES new files on `base`, written into the agent's own object store (as a
    sandboxed agent's commit is): one `git fast-import` in a scratch repository whose objects
    are the agent's, so no ref of the clone moves."""
    scratch = tmp_path / "scratch.git"
    git(tmp_path, "init", "--quiet", "--bare", str(scratch))
    stream = [
        f"commit refs/heads/agent\nmark :1\ncommitter a <a@codedesk.invalid> 0 +0000\n"
        f"data 5\nagent\nfrom {base}\n"
    ]
    for number in range(FILES):
        data = f"agent file {number}\n"
        stream.append(f"M 100644 inline agent/{number}.txt\ndata {len(data)}\n{data}\n")
    marks = tmp_path / "marks"
    subprocess.run(
        ["git", "fast-import", "--quiet", f"--export-marks={marks}"],
        cwd=scratch,
        env={**os.environ, "GIT_DIR": str(scratch), **layout.environment()},
        input="".join(stream).encode(),
        check=True,
    )
    return marks.read_text().split()[1]


def loose_objects(clone: Path) -> int:
    objects = clone / ".git" / "objects"
    return sum(
        len(os.listdir(folder))
        for folder in objects.iterdir()
        if len(folder.name) == 2 and folder.is_dir()
    )


def kill_take_back_when(folder: Path, worktree: Worktree, seen: Callable[[], bool]) -> None:
    """Run the hand-back in its own process group and SIGKILL the group once `seen()` holds."""
    process = subprocess.Popen(
        [sys.executable, "-c", TAKE_BACK, str(folder), worktree.model_dump_json()],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + PATIENCE  # a safety net, not a measure
    while not seen():
        assert process.poll() is None, "the hand-back ended before the kill"
        assert time.monotonic() < deadline, "the hand-back never reached the kill point"
        time.sleep(WATCH)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(10)


@pytest.mark.parametrize("point", ["copying-objects", "objects-copied"])
def test_a_hand_back_killed_halfway_is_taken_back_whole_by_the_next_attempt(
    tmp_path: Path, point: str
) -> None:
    clone, worktree = a_job(tmp_path)
    folder = tmp_path / "job"
    layout = agent_git(folder, worktree)
    prepare(layout)
    tip = agent_commit(tmp_path, layout, worktree.base)
    agent_branch_at(layout, tip)
    before = loose_objects(clone)
    every = FILES + 3  # the commit, its two trees (the root, agent/) and every file
    wanted = {"copying-objects": FILES // 2, "objects-copied": every}[point]

    kill_take_back_when(folder, worktree, lambda: loose_objects(clone) - before >= wanted)
    copied = loose_objects(clone) - before
    print(f"{point}: killed with {copied} of {every} objects in the clone")
    if point == "copying-objects":
        assert copied < every, "the kill must land while the objects are copied"
        assert git(clone, "rev-parse", worktree.branch) == worktree.base

    # The retried agent attempt begins with `prepare`, which takes back what is left.
    prepare(agent_git(folder, worktree))

    assert git(clone, "rev-parse", worktree.branch) == tip
    listed = git(clone, "rev-list", "--objects", tip, "--not", worktree.base).splitlines()
    assert len(listed) == every
    assert not list((clone / ".git").rglob("*.lock"))
    git(clone, "fsck", "--connectivity-only", "--no-dangling")  # fails on a missing object
    assert (layout.refs / layout.leaf).read_text().strip() == tip, "the next agent's branch"
