"""Shipping activities: the change report and the push of exactly the reported SHA."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from temporalio import activity

from activities.forge.pull_request import open_pull_request
from activities.git.git_commands import (
    commit_log,
    head_sha,
    lines,
    porcelain_files,
    run_git,
    try_git,
)
from activities.off_loop import off_the_loop
from activities.shelf_paths import existing_clone
from desk.config.settings import DeskSettings
from desk.errors import GitError, ShipRefusal
from desk.failures import desk_failures
from desk.payloads.ship_payloads import (
    ChangeReport,
    CloneHead,
    FileChange,
    HeadQuery,
    PushInput,
    PushResult,
    PushStatus,
    ReportInput,
)
from desk.repo_names import check_remote_url

PUSH_LOCK = "codedesk-push.flock"
"""In the clone's git directory: held while codedesk pushes (see `push_lock`); not a git lock."""


class ShipActivities:
    """Run on the host that owns the shelf, under the repository's `Repo` entity."""

    def __init__(self, settings: DeskSettings) -> None:
        self.settings = settings

    @activity.defn
    async def change_report(self, request: ReportInput) -> ChangeReport:
        """Fetch, check the clone is clean and ahead of origin, and describe what would ship."""
        return await off_the_loop(self._change_report, request)

    @activity.defn
    async def clone_head(self, query: HeadQuery) -> CloneHead:
        """The clone's HEAD now: a push of another SHA is refused before anyone is asked."""
        return await off_the_loop(self._clone_head, query)

    @activity.defn
    async def push(self, request: PushInput) -> PushResult:
        """Push exactly the reported SHA to the reported branch, never forced, after rechecking.

        Safe to run twice: a remote already at the SHA counts as pushed.
        """
        return await off_the_loop(self._push, request)

    def _change_report(self, request: ReportInput) -> ChangeReport:
        with desk_failures():
            clone = existing_clone(self.settings, request.repo)
            destination = push_destination(clone)
            run_git(clone, "fetch", "--quiet", "origin")
            branch = default_branch(clone)
            _require_clean(clone)
            head = head_sha(clone)
            remote_tip = run_git(clone, "rev-parse", f"refs/remotes/origin/{branch}").strip()
            missing = _count(clone, f"{head}..{remote_tip}")
            if missing:
                raise ShipRefusal(
                    f"The clone is missing {missing} commit(s) of origin/{branch}: bring them in "
                    "(git pull --rebase) and report again."
                )
            ahead = _count(clone, f"{remote_tip}..{head}")
            if not ahead:
                raise ShipRefusal(f"Nothing to ship: the clone is at origin/{branch}.")
            commits = commit_log(clone, f"{remote_tip}..{head}")
            files = _numstat(clone, remote_tip, head)
            # The host's report limits bound what a request may ask for (host policy).
            most_commits = min(request.max_commits, self.settings.report_commits)
            most_files = min(request.max_files, self.settings.report_files)
            return ChangeReport(
                repo=request.repo,
                head=head,
                default_branch=branch,
                destination=destination,
                remote_tip=remote_tip,
                commits=commits[:most_commits],
                commits_omitted=max(0, len(commits) - most_commits),
                files=files[:most_files],
                files_omitted=max(0, len(files) - most_files),
                made_at=datetime.now(UTC),
            )

    def _clone_head(self, query: HeadQuery) -> CloneHead:
        with desk_failures():
            return CloneHead(head=head_sha(existing_clone(self.settings, query.repo)))

    def _push(self, request: PushInput) -> PushResult:
        receipt = request.receipt
        with desk_failures():
            clone = existing_clone(self.settings, receipt.repo)
            destination = push_destination(clone)
            # Before the "already pushed" check: another remote having the SHA is no push.
            if destination != receipt.destination:
                raise ShipRefusal(
                    f"The push destination changed from {receipt.destination} to "
                    f"{destination}. Nothing was pushed."
                )
            if request.pull_request is not None:
                with push_lock(clone):
                    url, already = open_pull_request(clone, receipt, request.pull_request)
                return _pushed(receipt, already=already).model_copy(
                    update={"branch": request.pull_request.branch, "pull_request_url": url}
                )
            ref = f"refs/heads/{receipt.default_branch}"
            with push_lock(clone):
                if remote_tip(clone, ref) == receipt.head:
                    return _pushed(receipt, already=True)
                run_git(clone, "fetch", "--quiet", "origin")
                problem = _push_problem(clone, receipt)
                if problem:
                    raise ShipRefusal(f"{problem} Nothing was pushed.")
                spec = f"{receipt.head}:{ref}"
                try:
                    run_git(clone, "push", "--quiet", "--porcelain", "origin", spec)
                except GitError:
                    # A dead attempt's own `git push` (its worker was killed, its git lived on)
                    # may have landed meanwhile and made this one fail: that is the push done.
                    if remote_tip(clone, ref) == receipt.head:
                        return _pushed(receipt, already=True)
                    raise
                return _pushed(receipt, already=False)


@contextmanager
def push_lock(clone: Path) -> Iterator[None]:
    """One push of a clone at a time on this host.

    After a server restart Temporal may start a push again while the first attempt's worker
    still pushes (its heartbeats went nowhere): the second waits here, then finds the remote at
    the SHA. The flock dies with its process, so a killed worker's lock frees itself.
    """
    with (clone / ".git" / PUSH_LOCK).open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def push_destination(clone: Path) -> str:
    """The one credential-free push URL of origin; checked before anything is fetched."""
    urls = lines(run_git(clone, "remote", "get-url", "--push", "--all", "origin"))
    if len(urls) != 1:
        raise ShipRefusal(
            f"origin has {len(urls)} push URLs; codedesk pushes to exactly one. Remove the extra "
            "pushurl entries."
        )
    fetch_urls = lines(run_git(clone, "remote", "get-url", "--all", "origin"))
    for url in [*urls, *fetch_urls]:
        check_remote_url(url)
    return urls[0]


def default_branch(clone: Path) -> str:
    """origin's default branch as the remote names it now (origin/HEAD in the clone may be stale:
    `git fetch` does not update it)."""
    ok, out = try_git(clone, "ls-remote", "--symref", "origin", "HEAD")
    for line in lines(out) if ok else []:
        target, _, name = line.partition("\t")
        if name == "HEAD" and target.startswith("ref: refs/heads/"):
            return target.removeprefix("ref: refs/heads/")
    ok, ref = try_git(clone, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
    if not ok:
        try_git(clone, "remote", "set-head", "origin", "--auto")
        ok, ref = try_git(clone, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD")
    if not ok or not ref.strip().startswith("refs/remotes/origin/"):
        raise ShipRefusal(
            "origin has no default branch (origin/HEAD); set it with "
            "`git remote set-head origin --auto`."
        )
    return ref.strip().removeprefix("refs/remotes/origin/")


def _require_clean(clone: Path) -> None:
    dirty = porcelain_files(clone)
    if dirty:
        raise ShipRefusal(
            f"The clone has uncommitted changes ({', '.join(dirty[:10])}); commit or stash them."
        )


def _count(clone: Path, span: str) -> int:
    return int(run_git(clone, "rev-list", "--count", span).strip())


def _numstat(clone: Path, base: str, head: str) -> list[FileChange]:
    changes = []
    for line in lines(run_git(clone, "diff", "--numstat", f"{base}..{head}")):
        added, deleted, path = line.split("\t", 2)
        changes.append(
            FileChange(
                path=path,
                added=int(added) if added.isdigit() else 0,
                deleted=int(deleted) if deleted.isdigit() else 0,
            )
        )
    return changes


def remote_tip(clone: Path, ref: str) -> str:
    out = run_git(clone, "ls-remote", "origin", ref).strip()
    return out.split()[0] if out else ""


def _push_problem(clone: Path, receipt: ChangeReport) -> str:
    """Why the reported SHA must not be pushed now, or empty when it may."""
    if head_sha(clone) != receipt.head:
        return f"HEAD is no longer {receipt.head}: report again and push the new SHA."
    if porcelain_files(clone):
        return "The clone has uncommitted changes."
    if default_branch(clone) != receipt.default_branch:
        return f"origin's default branch is no longer {receipt.default_branch}."
    ok, tip = try_git(clone, "rev-parse", f"refs/remotes/origin/{receipt.default_branch}")
    if ok:
        fast_forward, _ = try_git(clone, "merge-base", "--is-ancestor", tip.strip(), receipt.head)
        if not fast_forward:
            moved = tip.strip()[:12]
            return (
                f"origin/{receipt.default_branch} moved to {moved}, which {receipt.head[:12]} "
                "does not contain: the push would not be a fast-forward."
            )
    return ""


def _pushed(receipt: ChangeReport, *, already: bool) -> PushResult:
    return PushResult(
        status=PushStatus.PUSHED,
        repo=receipt.repo,
        sha=receipt.head,
        branch=receipt.default_branch,
        destination=receipt.destination,
        already=already,
    )
