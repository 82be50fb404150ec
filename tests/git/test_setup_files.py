"""The owner's set-up files copied from a clone into a worktree (real git), and the refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from activities.setup.copy_files import copy_setup_files
from desk.errors import SetupError
from desk.records.repo_setup import RepoSetup, SetRepoSetup
from tests.helpers.repos import git, make_origin


@pytest.fixture
def clone_and_worktree(tmp_path: Path) -> tuple[Path, Path]:
    origin = make_origin(tmp_path / "api.git")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", str(origin), str(clone))
    worktree = tmp_path / "wt"
    git(clone, "worktree", "add", "--quiet", "-b", "job-1", str(worktree))
    (clone / ".env").write_text("A=1\n")
    (clone / "config").mkdir()
    (clone / "config" / "local.toml").write_text("port = 1\n")
    return clone, worktree


def test_files_are_copied_and_kept_out_of_git_once(clone_and_worktree: tuple[Path, Path]) -> None:
    clone, worktree = clone_and_worktree
    for _ in range(2):  # a retried attempt copies again and excludes nothing twice
        copied = copy_setup_files(clone, worktree, [".env", "config/local.toml"])
    assert copied == [".env", "config/local.toml"]
    assert (worktree / ".env").read_text() == "A=1\n"
    assert (worktree / "config" / "local.toml").read_text() == "port = 1\n"
    assert git(worktree, "status", "--porcelain") == ""
    exclude = worktree / git(worktree, "rev-parse", "--git-path", "info/exclude")
    assert exclude.read_text().splitlines().count("/.env") == 1


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("missing.env", "the clone has no such file"),
        ("config", "not a regular file"),
        ("linked.env", "linked.env is a symlink in the clone"),
        ("through/.env", "through is a symlink in the clone"),
    ],
)
def test_a_file_that_cannot_be_copied_is_refused_and_nothing_is_copied(
    clone_and_worktree: tuple[Path, Path], path: str, why: str
) -> None:
    clone, worktree = clone_and_worktree
    (clone / "linked.env").symlink_to(clone / ".env")
    (clone / "through").symlink_to(clone.parent)
    (clone.parent / ".env").write_text("outside\n")
    with pytest.raises(SetupError, match=why):
        copy_setup_files(clone, worktree, [".env", path])
    assert not (worktree / ".env").exists()


def test_a_symlink_in_the_worktree_is_refused(clone_and_worktree: tuple[Path, Path]) -> None:
    clone, worktree = clone_and_worktree
    (worktree / "config").symlink_to(clone.parent)
    with pytest.raises(SetupError, match="config is a symlink in the worktree"):
        copy_setup_files(clone, worktree, ["config/local.toml"])
    assert not (clone.parent / "local.toml").exists()


@pytest.mark.parametrize("path", ["../outside", "/etc/passwd", "a/../../b", ".git/config", ""])
def test_a_path_that_could_escape_the_clone_is_refused_when_set(path: str) -> None:
    with pytest.raises(SetupError, match="inside the clone"):
        SetRepoSetup(repo="acme/api", copy_files=[path]).applied_to(RepoSetup())


def test_a_change_keeps_what_it_does_not_name_and_clear_forgets_all() -> None:
    current = RepoSetup(setup="npm ci", copy_files=[".env"], check="npm test")
    changed = SetRepoSetup(repo="acme/api", check_blocks=False).applied_to(current)
    assert changed == current.model_copy(update={"check_blocks": False})
    assert SetRepoSetup(repo="acme/api", clear=True).applied_to(current).empty()
