"""Shelf activities: clone (or adopt) a repository onto the shelf and describe the clones."""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from temporalio import activity

from activities.git.git_commands import run_git, try_git
from activities.git_own_dir import git_dir_escape, refuse_escaping_git_dir
from activities.off_loop import off_the_loop
from activities.shelf.adopt import adopt_clone
from activities.shelf.describe import describe_clone, shelf_clones
from activities.shelf_paths import clone_path
from desk.config.settings import DeskSettings
from desk.errors import AdoptionError, CloneExistsError, GitDirEscapeError, RemoteUrlError
from desk.failures import desk_failures
from desk.payloads.jobs import AddRepoInput, CloneInfo, ListReposInput, ShelfListing, ShelfLook
from desk.repo_names import check_clone_source, clone_source_for, parse_repo_name


class ShelfActivities:
    """Activities run by the host that owns the shelf."""

    def __init__(self, settings: DeskSettings) -> None:
        self.settings = settings

    @activity.defn
    async def add_repo(self, request: AddRepoInput) -> CloneInfo:
        """Clone `owner/repo` into `<shelf>/<owner>/<repo>`, or move the clone the request
        adopts there; an existing clone is refused."""
        return await off_the_loop(self._add_repo, request)

    @activity.defn
    async def list_repos(self, request: ListReposInput) -> ShelfListing:
        """Every clone on the shelf with branch, upstream ahead/behind, dirty files, last commit."""
        return await off_the_loop(self._list_repos, request)

    @activity.defn
    async def clone_on_shelf(self, request: ShelfLook) -> bool:
        """Whether `<shelf>/<owner>/<repo>` holds a clone on this host."""
        with desk_failures():
            return (clone_path(self.settings, request.repo) / ".git").exists()

    def _add_repo(self, request: AddRepoInput) -> CloneInfo:
        with desk_failures():
            name = parse_repo_name(request.repo)
            if request.adopt:
                return self._adopt(str(name), Path(request.adopt))
            source = self._source(
                request.source, clone_source_for(name, self.settings.clone_source)
            )
            target = clone_path(self.settings, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            with _adding(target):
                if target.exists():
                    if activity.info().attempt > 1 and _origin(target) == source:
                        return self._described(str(name), target)
                    raise CloneExistsError(
                        f"Repository {str(name)!r} is already on the shelf at {target}; use it "
                        "as it is, or move that directory away first."
                    )
                # Named after the run, so a retry finds (and removes) what a dead attempt left.
                run = activity.info().workflow_run_id or "run"
                partial = target.parent / f".{name.name}.partial-{run}"
                shutil.rmtree(partial, ignore_errors=True)
                try:
                    run_git(target.parent, "clone", "--quiet", "--", source, str(partial))
                    partial.rename(target)
                finally:
                    shutil.rmtree(partial, ignore_errors=True)
            return self._described(str(name), target)

    def _adopt(self, repo: str, folder: Path) -> CloneInfo:
        target = clone_path(self.settings, parse_repo_name(repo))
        shelf = self.settings.shelf_dir.resolve()
        if not folder.is_absolute():
            raise AdoptionError(
                f"{folder} is not an absolute path on this host. Nothing was moved."
            )
        if folder.resolve() == shelf or folder.resolve().is_relative_to(shelf):
            raise AdoptionError(f"{folder} is inside the shelf already. Nothing was moved.")
        if shelf.is_relative_to(folder.resolve()):
            raise AdoptionError(f"{folder} holds the shelf itself. Nothing was moved.")
        target.parent.mkdir(parents=True, exist_ok=True)
        with _adding(target):
            # A retry after the move itself: the folder is gone, the shelf has it.
            if activity.info().attempt > 1 and target.exists() and not folder.exists():
                return self._described(repo, target)
            adopt_clone(folder, target)
        return self._described(repo, target)

    def _described(self, repo: str, path: Path) -> CloneInfo:
        refuse_escaping_git_dir(repo, path)
        return describe_clone(repo, path, self.settings.repo_list_commits)

    def _list_repos(self, request: ListReposInput) -> ShelfListing:
        with desk_failures():
            clones = []
            for path in shelf_clones(self.settings.shelf_dir):
                repo = f"{path.parent.name}/{path.name}"
                if git_dir_escape(path):  # listed with the refusal; no git runs there
                    try:
                        refuse_escaping_git_dir(repo, path)
                    except GitDirEscapeError as refused:
                        clones.append(CloneInfo(repo=repo, path=str(path), refusal=str(refused)))
                    continue
                error = ""
                if request.fetch:
                    ok, text = try_git(path, "fetch", "--quiet", "--prune", "origin")
                    error = "" if ok else text
                info = self._described(repo, path)
                clones.append(info.model_copy(update={"error": error}) if error else info)
            return ShelfListing(clones=clones)

    def _source(self, given: str, default: str) -> str:
        if not given:
            return check_clone_source(default)
        check_clone_source(given)
        local = Path(given).expanduser()
        if "://" not in given and local.exists():
            return str(local.resolve())
        if "://" not in given and ":" not in given:
            raise RemoteUrlError(
                f"Clone source {given!r} is neither a URL nor an existing path; check the path."
            )
        return given


@contextmanager
def _adding(target: Path) -> Iterator[None]:
    """One clone into `target` at a time: a stalled attempt and its retry never clone at once."""
    with (target.parent / f".{target.name}.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _origin(path: Path) -> str:
    ok, url = try_git(path, "remote", "get-url", "origin")
    return url.strip() if ok else ""
