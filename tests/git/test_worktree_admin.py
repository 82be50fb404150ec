"""Worktrees cut while another job's release prunes the clone's worktree list."""

from __future__ import annotations

import threading
from pathlib import Path

from activities.git.branches import cut_worktree
from activities.git.worktree_admin import remove_worktree
from tests.helpers.repos import git

CUTS = 200
PRUNERS = 2


def test_cuts_never_lose_their_entry_to_a_concurrent_prune(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    clone.mkdir()
    git(clone, "init", "--quiet", "--initial-branch=main")
    git(clone, "commit", "--quiet", "--allow-empty", "-m", "initial")
    cutting = threading.Event()
    failures: list[BaseException] = []

    def release_others() -> None:
        while not cutting.is_set():
            remove_worktree(clone, tmp_path / "gone")

    pruners = [threading.Thread(target=release_others) for _ in range(PRUNERS)]
    for pruner in pruners:
        pruner.start()
    try:
        for number in range(1, CUTS + 1):
            try:
                cut_worktree(clone, tmp_path / "trees" / str(number), number)
            except Exception as error:  # noqa: BLE001 - every failed cut is the finding
                failures.append(error)
    finally:
        cutting.set()
        for pruner in pruners:
            pruner.join()
    assert not failures, f"{len(failures)} of {CUTS} cuts failed: {failures[0]}"
    listed = git(clone, "worktree", "list", "--porcelain").count("worktree ")
    assert listed == CUTS + 1
