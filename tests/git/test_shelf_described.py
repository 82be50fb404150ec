"""A shelf that describes its clones (last commits, what the README says, the instruction files
an agent reads, CI hints, under the reading rules), and adopting a clone the owner has."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desk.config.settings import DeskSettings
from desk.errors import AdoptionError, CloneExistsError, GitDirEscapeError
from surfaces.clients.desk_client import DeskClient
from surfaces.clients.ship_client import ShippingClient
from tests.helpers.cli_helpers import assert_refused, run_cli, settings_env, shown
from tests.helpers.repos import git, make_origin, snapshot

REPO = "acme/api"
FILES = {
    "README.md": "# API\n\nThe notes service of acme.\n",
    "CLAUDE.md": "Run make test before committing.\n",
    ".cursor/rules/style.mdc": "Small functions.\n",
    ".github/workflows/test.yml": "on: push\n",
    "big.txt": "x" * (1024 * 1024),
}


@pytest.fixture
def settings(settings: DeskSettings) -> DeskSettings:
    """The host lists each clone's last two commits (the worker's setting, not the CLI's)."""
    return settings.model_copy(update={"repo_list_commits": 2})


def origin_with_history(root: Path) -> Path:
    """An origin whose main has four commits, the files above and a committed symlink that
    points out of any clone."""
    origin = make_origin(root / "origins" / "acme" / "api.git", FILES)
    work = root / "work"
    git(root, "clone", "--quiet", str(origin), str(work))
    (work / "AGENTS.md").symlink_to("/etc/passwd")
    for subject in ("second", "third", "fourth"):
        (work / f"{subject}.txt").write_text(subject)
        git(work, "add", "-A")
        git(work, "commit", "--quiet", "-m", subject)
    git(work, "push", "--quiet", "origin", "main")
    return origin


async def test_the_listing_describes_each_clone_under_the_reading_rules(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin_with_history(tmp_path)))
    [listed] = await desk.list_repos()
    assert [commit.subject for commit in listed.recent_commits] == ["fourth", "third"]
    assert listed.summary == "The notes service of acme."
    # AGENTS.md is a symlink to /etc/passwd: it is not an instruction file, and not read.
    assert listed.instruction_files == ["CLAUDE.md", ".cursor/rules/style.mdc"]
    assert listed.ci_hints == [".github/workflows/test.yml"]
    assert listed.refused_folders == []


async def test_repo_list_json_carries_the_description(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    await desk.add_repo(REPO, str(origin_with_history(tmp_path)))
    env = settings_env(settings)
    listed = await run_cli(env, "repo", "list", "--json", cwd=tmp_path)
    assert listed.returncode == 0, shown(listed)
    [entry] = json.loads(listed.stdout)
    assert [commit["subject"] for commit in entry["recent_commits"]] == ["fourth", "third"]
    assert entry["summary"] == "The notes service of acme."
    assert entry["instruction_files"] == ["CLAUDE.md", ".cursor/rules/style.mdc"]
    assert entry["ci_hints"] == [".github/workflows/test.yml"]
    table = await run_cli(env, "repo", "list", cwd=tmp_path)
    assert table.returncode == 0, shown(table)
    for shown_text in ("The notes service of acme.", "CLAUDE.md", ".github/workflows/test.yml"):
        assert shown_text in table.stdout, shown(table)


def own_clone(root: Path, origin: Path) -> Path:
    """A clone the owner made themselves, outside the shelf."""
    folder = root / "mine" / "api"
    git(root, "clone", "--quiet", str(origin), str(folder))
    return folder


async def test_adopting_moves_the_clone_onto_the_shelf_without_cloning(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    origin = make_origin(tmp_path / "origins" / "acme" / "api.git")
    folder = own_clone(tmp_path, origin)
    (folder / "local-only.txt").write_text("kept\n")
    git(folder, "add", "local-only.txt")
    git(folder, "commit", "--quiet", "-m", "work of my own")
    inode = (folder / ".git").stat().st_ino
    env = settings_env(settings)
    added = await run_cli(env, "repo", "add", REPO, "--adopt", str(folder), cwd=tmp_path)
    assert added.returncode == 0, shown(added)
    target = settings.shelf_dir / "acme" / "api"
    assert f"Adopted {folder} as {REPO} at {target}" in added.stdout
    assert not folder.exists()
    assert (target / ".git").stat().st_ino == inode, "moved, not cloned again"
    [listed] = await desk.list_repos()
    assert (listed.repo, listed.ahead, listed.last_commit) == (REPO, 1, "work of my own")


@pytest.mark.parametrize("unfit", ["dirty", "worktree", "no-origin", "not-a-clone"])
async def test_an_unfit_folder_is_refused_and_left_where_it_was(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path, unfit: str
) -> None:
    origin = make_origin(tmp_path / "origins" / "acme" / "api.git")
    folder = own_clone(tmp_path, origin)
    if unfit == "dirty":
        (folder / "README.md").write_text("changed\n")
        reason = "uncommitted change"
    elif unfit == "worktree":
        git(folder, "worktree", "add", "--quiet", str(tmp_path / "linked"))
        folder = tmp_path / "linked"
        reason = "keeps its git directory outside the clone"
    elif unfit == "no-origin":
        git(folder, "remote", "remove", "origin")
        reason = "no remote named origin"
    else:
        folder = tmp_path / "plain"
        folder.mkdir()
        reason = "not a clone of its own"
    before = snapshot(folder)
    with pytest.raises(AdoptionError, match=reason):
        await desk.add_repo(REPO, adopt=str(folder))
    assert snapshot(folder) == before
    assert not (settings.shelf_dir / "acme" / "api").exists()


async def test_adopting_never_replaces_a_shelf_entry(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    origin = make_origin(tmp_path / "origins" / "acme" / "api.git")
    await desk.add_repo(REPO, str(origin))
    shelf = snapshot(settings.shelf_dir)
    folder = own_clone(tmp_path, origin)
    with pytest.raises(CloneExistsError, match="never replaces"):
        await desk.add_repo(REPO, adopt=str(folder))
    assert snapshot(settings.shelf_dir) == shelf
    assert (folder / ".git").is_dir()


async def test_a_source_and_an_adoption_at_once_are_refused(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path
) -> None:
    origin = make_origin(tmp_path / "origins" / "acme" / "api.git")
    folder = own_clone(tmp_path, origin)
    env = settings_env(settings)
    both = await run_cli(
        env, "repo", "add", REPO, "--from", str(origin), "--adopt", str(folder), cwd=tmp_path
    )
    assert_refused(both, "--from", "--adopt")
    assert (folder / ".git").is_dir()


def _git_dir_moved_out(clone: Path, elsewhere: Path, layout: str) -> None:
    """The clone's git directory moved to `elsewhere`, named by a symlink or a gitdir file."""
    (clone / ".git").rename(elsewhere)
    if layout == "symlink":
        (clone / ".git").symlink_to(elsewhere)
    else:
        (clone / ".git").write_text(f"gitdir: {elsewhere}\n")
        git(clone, "config", "core.worktree", str(clone))


@pytest.mark.parametrize("layout", ["symlink", "gitdir-file"])
async def test_a_clone_whose_git_directory_is_elsewhere_is_not_adopted(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path, layout: str
) -> None:
    origin = make_origin(tmp_path / "origins" / "acme" / "api.git")
    folder = own_clone(tmp_path, origin)
    elsewhere = tmp_path / "elsewhere.git"
    _git_dir_moved_out(folder, elsewhere, layout)
    before = snapshot(folder)
    env = settings_env(settings)
    added = await run_cli(env, "repo", "add", REPO, "--adopt", str(folder), cwd=tmp_path)
    assert_refused(added, "keeps its git directory outside the clone", str(elsewhere))
    assert snapshot(folder) == before
    assert not (settings.shelf_dir / "acme" / "api").exists()


@pytest.mark.parametrize("layout", ["symlink", "gitdir-file"])
async def test_a_shelf_clone_whose_git_directory_moved_out_is_refused_at_every_use(
    desk: DeskClient, settings: DeskSettings, tmp_path: Path, layout: str
) -> None:
    origin = make_origin(tmp_path / "origins" / "acme" / "api.git")
    clone = Path((await desk.add_repo(REPO, str(origin))).path)
    elsewhere = tmp_path / "elsewhere.git"
    _git_dir_moved_out(clone, elsewhere, layout)
    says = f"The clone of {REPO} at {clone} keeps its git directory outside the clone"

    [listed] = await desk.list_repos()
    assert listed.refusal.startswith(says) and str(elsewhere) in listed.refusal, listed
    with pytest.raises(GitDirEscapeError, match=says):
        await desk.submit_job(REPO, "work")
    with pytest.raises(GitDirEscapeError, match=says):
        await ShippingClient(desk.client, settings).change_report(REPO)
    with pytest.raises(CloneExistsError):
        await desk.add_repo(REPO, str(origin))
    env = settings_env(settings)
    listing = await run_cli(env, "repo", "list", cwd=tmp_path)
    assert listing.returncode == 0, shown(listing)
    assert f"{REPO}: refused: The clone of {REPO} at " in listing.stdout, shown(listing)
    as_json = await run_cli(env, "repo", "list", "--json", cwd=tmp_path)
    assert json.loads(as_json.stdout)[0]["refusal"].startswith(says), shown(as_json)
