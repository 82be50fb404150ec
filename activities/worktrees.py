"""Worktree activities: cut a job's worktree, integrate its branch, release what is left."""

from __future__ import annotations

import shutil
from pathlib import Path

from temporalio import activity

from activities.agent_git import settle
from activities.agent_log import log_tail
from activities.failures import desk_failures
from activities.git import git_state, head_sha, lines, porcelain_files, run_git, try_git
from activities.paths import clone_path, job_dir, worktree_path
from desk.errors import CloneMissingError
from desk.models import (
    CommitInfo,
    IntegrationRequest,
    IntegrationResult,
    IntegrationStatus,
    PrepareWorktreeInput,
    ReleaseResult,
    ReleaseWorktreeInput,
    Worktree,
)
from desk.names import job_branch
from desk.settings import DeskSettings

WORKTREE_RECEIPT = "worktree.json"
INTEGRATION_RECEIPT = "integration.json"
FALLBACK_IDENTITY = ("-c", "user.name=codedesk", "-c", "user.email=codedesk@localhost")


class WorktreeActivities:
    """Activities that change a clone: every one checks what is done before it acts."""

    def __init__(self, settings: DeskSettings) -> None:
        self.settings = settings

    @activity.defn
    async def prepare_worktree(self, request: PrepareWorktreeInput) -> Worktree:
        """Cut branch `worker/<n>` from the clone's HEAD into `<shelf>/.worktrees/.../<n>`."""
        with desk_failures():
            clone = self._clone(request.repo)
            receipt = job_dir(self.settings, request.number) / WORKTREE_RECEIPT
            path = worktree_path(self.settings, request.repo, request.number)
            if receipt.is_file() and path.is_dir():
                return Worktree.model_validate_json(receipt.read_text())
            if path.exists():
                _remove_worktree(clone, path)
            base = head_sha(clone)
            branch = _free_branch(clone, request.number)
            path.parent.mkdir(parents=True, exist_ok=True)
            run_git(clone, "worktree", "add", "--quiet", "-b", branch, str(path), base)
            worktree = Worktree(path=str(path), branch=branch, base=base)
            receipt.parent.mkdir(parents=True, exist_ok=True)
            receipt.write_text(worktree.model_dump_json())
            return worktree

    @activity.defn
    async def integrate(self, request: IntegrationRequest) -> IntegrationResult:
        """Rebase the job's branch onto the clone's HEAD, fast-forward the clone, clean up."""
        with desk_failures():
            receipt = job_dir(self.settings, request.number) / INTEGRATION_RECEIPT
            if receipt.is_file():
                return IntegrationResult.model_validate_json(receipt.read_text())
            result = self._integrate(request)
            receipt.parent.mkdir(parents=True, exist_ok=True)
            receipt.write_text(result.model_dump_json())
            if result.status in (IntegrationStatus.INTEGRATED, IntegrationStatus.NOTHING):
                clone = self._clone(request.repo)
                _remove_worktree(clone, Path(request.worktree.path))
                _delete_branch(clone, request.worktree.branch)
            return result

    @activity.defn
    async def release_worktree(self, request: ReleaseWorktreeInput) -> ReleaseResult:
        """After a failure: keep a worktree that holds work, remove one that holds none."""
        with desk_failures():
            # Sandbox (activities/agent_git.py): no host-side git before the agent's pointers
            # are restored and its branch taken back, even when its attempt died unfinished.
            settle(job_dir(self.settings, request.number), request.worktree)
            output, cut, log = log_tail(self.settings, request.number, request.output_chars)
            told = ReleaseResult(kept=False, output=output, output_cut=cut, log_path=log)
            clone = self._clone(request.repo)
            path = Path(request.worktree.path)
            if not path.is_dir():
                _delete_branch_if_empty(clone, request.worktree)
                return told
            uncommitted = porcelain_files(path)
            commits, omitted = _commits(path, request.worktree.base, "HEAD", request.report_commits)
            if uncommitted or commits:
                return told.model_copy(
                    update={
                        "kept": True,
                        "commits": commits,
                        "commits_omitted": omitted,
                        "uncommitted": uncommitted[: request.report_files],
                        "git_state": git_state(path),
                    }
                )
            _remove_worktree(clone, path)
            _delete_branch(clone, request.worktree.branch)
            return told

    def _clone(self, repo: str) -> Path:
        path = clone_path(self.settings, repo)
        if not (path / ".git").exists():
            raise CloneMissingError(
                f"Repository {repo!r} is not on the shelf: add it with `codedesk repo add {repo}`."
            )
        return path

    def _integrate(self, request: IntegrationRequest) -> IntegrationResult:
        clone = self._clone(request.repo)
        tree = request.worktree
        path = Path(tree.path)
        if not path.is_dir():
            return IntegrationResult(
                status=IntegrationStatus.FAILED,
                reason=f"The worktree {path} is gone, so there is nothing to integrate.",
            )
        uncommitted = porcelain_files(path)
        commits, omitted = _commits(path, tree.base, "HEAD", request.report_commits)
        if uncommitted:
            return IntegrationResult(
                status=IntegrationStatus.REFUSED,
                reason=(
                    "The agent left uncommitted changes in its worktree, so nothing was "
                    f"integrated; branch {tree.branch} and worktree {path} are kept."
                ),
                commits=commits,
                commits_omitted=omitted,
                uncommitted=uncommitted[: request.report_files],
                branch_kept=True,
                git_state=git_state(path),
            )
        if not commits:
            return IntegrationResult(status=IntegrationStatus.NOTHING, head=head_sha(clone))
        refusal = _clone_refusal(clone, request.report_files)
        if refusal:
            return IntegrationResult(
                status=IntegrationStatus.REFUSED,
                reason=f"{refusal} Branch {tree.branch} and worktree {path} are kept.",
                commits=commits,
                commits_omitted=omitted,
                branch_kept=True,
                git_state=git_state(clone),
            )
        onto = head_sha(clone)
        rebased, _ = try_git(path, *_identity(path), "rebase", "--quiet", onto)
        if not rebased:
            conflicts = lines(run_git(path, "diff", "--name-only", "--diff-filter=U"))
            try_git(path, "rebase", "--abort")
            return IntegrationResult(
                status=IntegrationStatus.CONFLICT,
                reason=(
                    f"Rebasing {tree.branch} onto {onto[:12]} conflicts; the rebase was aborted "
                    f"and branch {tree.branch} and worktree {path} are kept."
                ),
                commits=commits,
                commits_omitted=omitted,
                conflict_files=conflicts[: request.report_files],
                branch_kept=True,
                git_state=git_state(path),
            )
        tip = head_sha(path)
        merged, detail = try_git(clone, "merge", "--ff-only", "--quiet", tip)
        if not merged:
            return IntegrationResult(
                status=IntegrationStatus.REFUSED,
                reason=f"The clone could not be fast-forwarded to {tip[:12]}: {detail}",
                commits=commits,
                commits_omitted=omitted,
                branch_kept=True,
                git_state=git_state(clone),
            )
        commits, omitted = _commits(clone, onto, tip, request.report_commits)
        return IntegrationResult(
            status=IntegrationStatus.INTEGRATED, head=tip, commits=commits, commits_omitted=omitted
        )


def _clone_refusal(clone: Path, max_files: int) -> str:
    """Why the clone must not be touched now, or empty when it may be fast-forwarded."""
    dirty = porcelain_files(clone)
    if dirty:
        shown = ", ".join(dirty[:max_files])
        return f"The clone {clone} has uncommitted changes ({shown}); commit or stash them."
    git_dir = Path(run_git(clone, "rev-parse", "--absolute-git-dir").strip())
    if (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists():
        return f"The clone {clone} is in the middle of a rebase; finish or abort it."
    if (git_dir / "MERGE_HEAD").exists():
        return f"The clone {clone} is in the middle of a merge; finish or abort it."
    ok, _ = try_git(clone, "symbolic-ref", "--quiet", "HEAD")
    if not ok:
        return f"The clone {clone} has a detached HEAD; check out its branch."
    return ""


def _commits(cwd: Path, base: str, tip: str, cap: int) -> tuple[list[CommitInfo], int]:
    """Commits in `base..tip`, oldest first, capped; and how many the cap left out."""
    out = run_git(cwd, "log", "--reverse", "--format=%H%x00%s", f"{base}..{tip}")
    found = [CommitInfo(sha=sha, subject=subject) for sha, subject in _pairs(out)]
    return found[:cap], max(0, len(found) - cap)


def _pairs(out: str) -> list[tuple[str, str]]:
    return [(line.split("\x00", 1) + [""])[:2] for line in lines(out)]  # type: ignore[misc]


def _identity(cwd: Path) -> tuple[str, ...]:
    """A committer identity for the rebase when the host has none configured."""
    ok, email = try_git(cwd, "config", "--get", "user.email")
    return () if ok and email.strip() else FALLBACK_IDENTITY


def _free_branch(clone: Path, number: int) -> str:
    suffix = 0
    while True:
        branch = job_branch(number, suffix)
        exists, _ = try_git(clone, "show-ref", "--verify", "--quiet", f"refs/heads/{branch}")
        if not exists:
            return branch
        suffix += 1


def _remove_worktree(clone: Path, path: Path) -> None:
    if path.exists():
        ok, _ = try_git(clone, "worktree", "remove", "--force", str(path))
        if not ok:
            shutil.rmtree(path, ignore_errors=True)
    try_git(clone, "worktree", "prune")


def _delete_branch(clone: Path, branch: str) -> None:
    try_git(clone, "branch", "--quiet", "-D", branch)


def _delete_branch_if_empty(clone: Path, worktree: Worktree) -> None:
    ok, tip = try_git(clone, "rev-parse", "--verify", "--quiet", f"refs/heads/{worktree.branch}")
    if ok and tip.strip() == worktree.base:
        _delete_branch(clone, worktree.branch)
