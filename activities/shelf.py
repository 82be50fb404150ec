"""Shelf activities: clone a repository onto the shelf and describe the clones."""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from temporalio import activity

from activities.git.commands import porcelain_files, run_git, try_git
from activities.off_loop import off_the_loop
from activities.paths import clone_path
from desk.config.settings import DeskSettings
from desk.errors import CloneExistsError, RemoteUrlError
from desk.failures import desk_failures
from desk.payloads.jobs import AddRepoInput, CloneInfo, ListReposInput, ShelfListing
from desk.repo_names import check_clone_source, clone_source_for, parse_repo_name


class ShelfActivities:
    """Activities run by the host that owns the shelf."""

    def __init__(self, settings: DeskSettings) -> None:
        self.settings = settings

    @activity.defn
    async def add_repo(self, request: AddRepoInput) -> CloneInfo:
        """Clone `owner/repo` into `<shelf>/<owner>/<repo>`; an existing clone is refused."""
        return await off_the_loop(self._add_repo, request)

    @activity.defn
    async def list_repos(self, request: ListReposInput) -> ShelfListing:
        """Every clone on the shelf with branch, upstream ahead/behind, dirty files, last commit."""
        return await off_the_loop(self._list_repos, request)

    def _add_repo(self, request: AddRepoInput) -> CloneInfo:
        with desk_failures():
            name = parse_repo_name(request.repo)
            source = self._source(
                request.source, clone_source_for(name, self.settings.clone_source)
            )
            target = clone_path(self.settings, name)
            target.parent.mkdir(parents=True, exist_ok=True)
            with _adding(target):
                if target.exists():
                    if activity.info().attempt > 1 and _origin(target) == source:
                        return describe_clone(str(name), target)
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
            return describe_clone(str(name), target)

    def _list_repos(self, request: ListReposInput) -> ShelfListing:
        with desk_failures():
            clones = []
            for path in shelf_clones(self.settings.shelf_dir):
                repo = f"{path.parent.name}/{path.name}"
                error = ""
                if request.fetch:
                    ok, text = try_git(path, "fetch", "--quiet", "--prune", "origin")
                    error = "" if ok else text
                info = describe_clone(repo, path)
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


def shelf_clones(shelf: Path) -> list[Path]:
    """Clones on the shelf, sorted; nothing dot-leading (.worktrees, a clone being made)."""
    if not shelf.is_dir():
        return []
    found = []
    for owner in sorted(shelf.iterdir()):
        if owner.name.startswith(".") or not owner.is_dir():
            continue
        for repo in sorted(owner.iterdir()):
            if not repo.name.startswith(".") and (repo / ".git").exists():
                found.append(repo)
    return found


@contextmanager
def _adding(target: Path) -> Iterator[None]:
    """One clone into `target` at a time: a stalled attempt and its retry never clone at once."""
    with (target.parent / f".{target.name}.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def describe_clone(repo: str, path: Path) -> CloneInfo:
    """Read one clone's state: branch, upstream and distance, dirty files, last commit."""
    branch = run_git(path, "rev-parse", "--abbrev-ref", "HEAD").strip()
    ok, upstream = try_git(path, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}")
    ahead = behind = 0
    if ok:
        counts = run_git(path, "rev-list", "--left-right", "--count", "HEAD...@{u}").split()
        ahead, behind = int(counts[0]), int(counts[1])
    head = last = ""
    when: datetime | None = None
    has_commit, log = try_git(path, "log", "-1", "--format=%H%x00%s%x00%cI")
    if has_commit and log:
        head, last, stamp = log.split("\x00")
        when = datetime.fromisoformat(stamp)
    return CloneInfo(
        repo=repo,
        path=str(path),
        branch=branch,
        upstream=upstream.strip() if ok else "",
        ahead=ahead,
        behind=behind,
        dirty=porcelain_files(path),
        head=head,
        last_commit=last,
        last_commit_at=when,
    )


def _origin(path: Path) -> str:
    ok, url = try_git(path, "remote", "get-url", "origin")
    return url.strip() if ok else ""
