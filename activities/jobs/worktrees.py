"""Worktree activities: cut a job's worktree, integrate its branch, release what is left, and
remove a finished job's agent session once it has been kept its time."""

from __future__ import annotations

import asyncio
import fcntl
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel
from temporalio import activity
from temporalio.client import Client

from activities.agent.process.agent_git import settle
from activities.agent.process.files import exclude_agent_files
from activities.agent.session.log import log_tail
from activities.agent.session.session import forget_sessions
from activities.git.branches import CUT_RECORD
from activities.git.fast_forward import finish_fast_forward
from activities.git.git_commands import (
    checkout_status,
    commit_line,
    commit_log,
    git_state,
    head_sha,
    lines,
    porcelain_files,
    run_git,
    try_git,
)
from activities.git.job_diff import job_diff
from activities.git.job_worktree import hand_back, keep_for_its_work, take_out, undo_take_out
from activities.git.kept import KeptWorktrees
from activities.off_loop import off_the_loop
from activities.setup.left_files import split_uncommitted
from activities.setup.steps import setup_now
from activities.shelf_paths import existing_clone, job_dir, kept_worktrees_dir, worktree_path
from desk.config.settings import DeskSettings
from desk.errors import CloneMissingError, GitDirEscapeError, GitError, WorktreeDiscardedError
from desk.failures import desk_failures
from desk.holds.budget_cards import BranchSoFar, BudgetCommit
from desk.payloads.conversation.review_payloads import JobDiff, JobDiffInput
from desk.payloads.conversation.session_payloads import SessionKeepInput
from desk.payloads.jobs import (
    CommitInfo,
    CutWorktree,
    DiscardWorktreeInput,
    IntegrationRequest,
    IntegrationResult,
    IntegrationStatus,
    PrepareWorktreeInput,
    ReleaseResult,
    ReleaseWorktreeInput,
    SoFarInput,
    Worktree,
)
from desk.records.repo_setup import RepoSetup

WORKTREE_RECEIPT = "worktree.json"
INTEGRATION_RECEIPT = "integration.json"
MERGE_PLAN = "merge-plan.json"
"""What an integration is about to do (see `_MergePlan`): a retry learns from it whether a
half-done rebase is codedesk's and which commits a fast-forward it finds done brought in."""
DISCARDED = "worktree-discarded"
"""In the job's folder: the job was cancelled while its worktree was cut (see `_discard`)."""
JOB_GIT_LOCK = "git.lock"
JOB_BRANCH = re.compile(r"worker/[0-9]+(-[a-z])?")
"""In the job's folder: held by the job's running git step (see `_job_lock`)."""
FALLBACK_IDENTITY = ("-c", "user.name=codedesk", "-c", "user.email=codedesk@localhost")


class WorktreeActivities:
    """Activities that change a clone: every one checks what is done before it acts."""

    def __init__(self, settings: DeskSettings, client: Client | None = None) -> None:
        self.settings = settings
        self.client = client
        """Reads the repository's set-up at the cut; without one, a job runs both its steps."""

    @activity.defn
    async def prepare_worktree(self, request: PrepareWorktreeInput) -> CutWorktree:
        """Give the job its branch at the clone's HEAD and a worktree on it at
        `<shelf>/.worktrees/.../<n>`: a kept one made clean, or a new cut.

        It also reads the repository's set-up then, while git cuts, so that a job with none to
        run skips its set-up step (issue 32; the agent's end reads it again for the check).
        """
        reading = asyncio.create_task(self._setup_now(request.repo))
        try:
            worktree = await off_the_loop(self._prepare, request)
        except BaseException:
            reading.cancel()
            raise
        return CutWorktree(**worktree.model_dump(), setup=await reading)

    async def _setup_now(self, repo: str) -> RepoSetup | None:
        """The set-up in force (None without a client: the job then runs both its steps)."""
        return await setup_now(self.client, repo) if self.client else None

    @activity.defn
    async def discard_worktree(self, request: DiscardWorktreeInput) -> bool:
        """After a cancel during `prepare_worktree`: undo what it did; True if it cut any."""
        return await off_the_loop(self._discard, request)

    @activity.defn
    async def integrate(self, request: IntegrationRequest) -> IntegrationResult:
        """Rebase the job's branch onto the clone's HEAD, fast-forward the clone, hand the
        worktree back (activities/git/job_worktree.py) and delete the branch."""
        return await off_the_loop(self._integrate_once, request)

    @activity.defn
    async def forget_session(self, request: SessionKeepInput) -> bool:
        """Once a finished job's session has been kept its time: remove the agent's homes in
        the job's folder, and the CLI's sessions with them; True if there were any."""
        return await off_the_loop(self._forget_session, request)

    @activity.defn
    async def release_worktree(self, request: ReleaseWorktreeInput) -> ReleaseResult:
        """After a failure: keep a worktree that holds work, hand back one that holds none."""
        return await off_the_loop(self._release, request)

    @activity.defn
    async def branch_so_far(self, request: SoFarInput) -> BranchSoFar:
        """At a budget pause: the branch's commits, their diffstat and how many paths hold
        uncommitted changes, for the budget card (it changes nothing)."""
        return await off_the_loop(self._so_far, request)

    def _so_far(self, request: SoFarInput) -> BranchSoFar:
        with desk_failures(), self._job_lock(request.number):
            settle(job_dir(self.settings, request.number), request.worktree)
            path, base = Path(request.worktree.path), request.worktree.base
            if not path.is_dir():
                return BranchSoFar()
            found, omitted = _commits(path, base, "HEAD", request.report_commits)
            _, stat = try_git(path, "diff", "--shortstat", f"{base}..HEAD")
            return BranchSoFar(
                commits=[BudgetCommit(sha=c.sha, subject=c.subject) for c in found],
                commits_omitted=omitted,
                diffstat=stat.strip(),
                uncommitted=len(porcelain_files(path)),
            )

    @activity.defn
    async def discard_reviewed(self, request: ReleaseWorktreeInput) -> ReleaseResult:
        """A reviewer discarded the job's work: its worktree and branch go, the clone stays as
        it was; the answer lists the commits discarded."""
        return await off_the_loop(self._discard_reviewed, request)

    @activity.defn
    async def job_diff(self, request: JobDiffInput) -> JobDiff:
        """The job's commits against the clone's HEAD (`codedesk diff`, the review card)."""
        return await off_the_loop(self._job_diff, request)

    def _job_diff(self, request: JobDiffInput) -> JobDiff:
        with desk_failures():
            return job_diff(existing_clone(self.settings, request.repo), request)

    def _prepare(self, request: PrepareWorktreeInput) -> Worktree:
        with desk_failures(), self._job_lock(request.number):
            if (job_dir(self.settings, request.number) / DISCARDED).exists():
                raise WorktreeDiscardedError(
                    f"Job {request.number} was cancelled, so no worktree is cut for it."
                )
            clone = existing_clone(self.settings, request.repo)
            exclude_agent_files(clone)
            folder = job_dir(self.settings, request.number)
            receipt = folder / WORKTREE_RECEIPT
            path = worktree_path(self.settings, request.repo, request.number)
            if receipt.is_file() and path.is_dir():
                return Worktree.model_validate_json(receipt.read_text())
            path.parent.mkdir(parents=True, exist_ok=True)
            kept = self._kept(clone, request.repo)
            branch, base = take_out(kept, path, request.number, folder, request.branch_name)
            if request.start_from:
                _go_on_from(path, request.start_from)
            worktree = Worktree(path=str(path), branch=branch, base=base)
            receipt.write_text(worktree.model_dump_json())
            return worktree

    def _discard(self, request: DiscardWorktreeInput) -> bool:
        """A cancelled prepare's thread may still be cutting: under the job's lock, either it
        is done (and what it cut or took is handed back or removed here) or it has not begun
        (and the mark left here stops it)."""
        with desk_failures(), self._job_lock(request.number):
            folder = job_dir(self.settings, request.number)
            (folder / DISCARDED).touch()
            path = worktree_path(self.settings, request.repo, request.number)
            cut = folder / CUT_RECORD
            if not path.exists() and not cut.is_file():
                return False
            clone = existing_clone(self.settings, request.repo)
            kept = self._kept(clone, request.repo)
            receipt = folder / WORKTREE_RECEIPT
            if receipt.is_file():
                worktree = Worktree.model_validate_json(receipt.read_text())
                hand_back(kept, path, folder)
                _delete_branch_if_empty(clone, worktree)
            else:
                undo_take_out(kept, path, folder)
            forget_sessions(folder)
            return True

    def _forget_session(self, request: SessionKeepInput) -> bool:
        with desk_failures(), self._job_lock(request.number):
            return forget_sessions(job_dir(self.settings, request.number))

    def _discard_reviewed(self, request: ReleaseWorktreeInput) -> ReleaseResult:
        """Under the job's lock, and again after a retry: what is gone stays gone."""
        with desk_failures(), self._job_lock(request.number):
            output, cut, log = log_tail(self.settings, request.number, request.output_chars)
            told = ReleaseResult(kept=False, output=output, output_cut=cut, log_path=log)
            clone = existing_clone(self.settings, request.repo)
            folder = job_dir(self.settings, request.number)
            settle(folder, request.worktree)
            path = Path(request.worktree.path)
            if path.is_dir():
                commits, omitted = _commits(
                    path, request.worktree.base, "HEAD", request.report_commits
                )
                told = told.model_copy(update={"commits": commits, "commits_omitted": omitted})
            hand_back(self._kept(clone, request.repo), path, folder)
            _delete_branch(clone, request.worktree.branch)
            return told

    def _integrate_once(self, request: IntegrationRequest) -> IntegrationResult:
        with desk_failures(), self._job_lock(request.number):
            receipt = job_dir(self.settings, request.number) / INTEGRATION_RECEIPT
            if receipt.is_file():
                result = IntegrationResult.model_validate_json(receipt.read_text())
            else:
                result = self._integrate(request)
                receipt.write_text(result.model_dump_json())
            folder = job_dir(self.settings, request.number)
            if result.status in (IntegrationStatus.INTEGRATED, IntegrationStatus.NOTHING):
                clone = existing_clone(self.settings, request.repo)
                hand_back(self._kept(clone, request.repo), Path(request.worktree.path), folder)
                _delete_branch(clone, request.worktree.branch)
            elif result.branch_kept:
                clone = existing_clone(self.settings, request.repo)
                keep_for_its_work(self._kept(clone, request.repo), folder)
            return result

    def _release(self, request: ReleaseWorktreeInput) -> ReleaseResult:
        with desk_failures(), self._job_lock(request.number):
            output, cut, log = log_tail(self.settings, request.number, request.output_chars)
            told = ReleaseResult(kept=False, output=output, output_cut=cut, log_path=log)
            path = Path(request.worktree.path)
            try:
                clone = existing_clone(self.settings, request.repo)
            except (CloneMissingError, GitDirEscapeError) as gone:
                # Someone removed the clone, or moved its git directory out of it: there is no
                # git of its own left to ask, and nothing to undo.
                activity.logger.warning(
                    "%s Job %s's worktree %s is left as it is.", gone, request.number, path
                )
                return told.model_copy(update={"kept": path.is_dir()})
            # Sandbox (activities/agent/process/agent_git.py): no host-side git before the agent's
            # pointers are restored and its branch taken back, even when its attempt died
            # unfinished.
            settle(job_dir(self.settings, request.number), request.worktree)
            if not path.is_dir():
                _delete_branch_if_empty(clone, request.worktree)
                return told
            uncommitted = porcelain_files(path)
            commits, omitted = _commits(path, request.worktree.base, "HEAD", request.report_commits)
            # The report says where git was at the end whether or not work is kept.
            told = told.model_copy(update={"git_state": git_state(path)})
            kept = self._kept(clone, request.repo)
            folder = job_dir(self.settings, request.number)
            if uncommitted or commits:
                keep_for_its_work(kept, folder)
                return told.model_copy(
                    update={
                        "kept": True,
                        "commits": commits,
                        "commits_omitted": omitted,
                        "uncommitted": uncommitted[: request.report_files],
                    }
                )
            hand_back(kept, path, folder)
            _delete_branch(clone, request.worktree.branch)
            return told

    def _kept(self, clone: Path, repo: str) -> KeptWorktrees:
        """The clone's kept worktrees: at most `kept_worktrees`, and no more than its slots."""
        size = min(self.settings.kept_worktrees, self.settings.max_workers)
        return KeptWorktrees(clone, kept_worktrees_dir(self.settings, repo), size)

    @contextmanager
    def _job_lock(self, number: int) -> Iterator[None]:
        """One git step of a job at a time on this host.

        A worker stalled past its heartbeat timeout (stopped, swapped out) finishes its step
        when it continues, while Temporal has already started the retry: the retry waits here
        for it, then finds its receipt instead of rebasing or merging a second time.
        """
        folder = job_dir(self.settings, number)
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / JOB_GIT_LOCK).open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield

    def _integrate(self, request: IntegrationRequest) -> IntegrationResult:
        clone = existing_clone(self.settings, request.repo)
        tree = request.worktree
        path = Path(tree.path)
        plan_path = job_dir(self.settings, request.number) / MERGE_PLAN
        done = _merged_before(clone, plan_path, request)
        if done is not None:
            return done
        if not path.is_dir():
            return IntegrationResult(
                status=IntegrationStatus.FAILED,
                reason=f"The worktree {path} is gone, so there is nothing to integrate.",
            )
        if plan_path.is_file():
            _abort_leftover_rebase(path)
        folder = job_dir(self.settings, request.number)
        uncommitted, by_setup = split_uncommitted(folder, path, porcelain_files(path))
        result = self._integrate_work(request, clone, plan_path, uncommitted)
        if by_setup:
            return result.model_copy(update={"setup_files": by_setup[: request.report_files]})
        return result

    def _integrate_work(
        self, request: IntegrationRequest, clone: Path, plan_path: Path, uncommitted: list[str]
    ) -> IntegrationResult:
        """Refuse the agent's uncommitted changes, else rebase and fast-forward the clone."""
        tree = request.worktree
        path = Path(tree.path)
        found, on_base = commit_line(path, tree.base, "HEAD")
        commits, omitted = _capped(found, request.report_commits)
        if uncommitted:
            return _kept(
                IntegrationStatus.REFUSED,
                "The agent left uncommitted changes in its worktree, so nothing was "
                f"integrated; branch {tree.branch} and worktree {path} are kept.",
                (commits, omitted),
                path,
                uncommitted=uncommitted[: request.report_files],
            )
        if not found:
            return IntegrationResult(status=IntegrationStatus.NOTHING, head=head_sha(clone))
        refusal, onto = _clone_refusal(clone, request.report_files)
        if refusal:
            return _kept(
                IntegrationStatus.REFUSED,
                f"{refusal} Branch {tree.branch} and worktree {path} are kept.",
                (commits, omitted),
                clone,
            )
        # The clone has not moved since the cut and the branch is one line on it: a rebase
        # would change nothing, so none runs, and the commits brought in are those found.
        as_found = onto == tree.base and on_base
        if as_found:
            tip = found[-1].sha
        else:
            plan_path.write_text(_MergePlan(onto=onto).model_dump_json())
            rebased = _rebase(path, tree, onto, (commits, omitted), request.report_files)
            if isinstance(rebased, IntegrationResult):
                return rebased
            tip = rebased
        plan_path.write_text(_MergePlan(onto=onto, tip=tip).model_dump_json())
        merged, detail = try_git(clone, "merge", "--ff-only", "--quiet", tip)
        if not merged:
            return _kept(
                IntegrationStatus.REFUSED,
                f"The clone could not be fast-forwarded to {tip[:12]}: {detail}",
                (commits, omitted),
                clone,
            )
        if as_found:
            return IntegrationResult(
                status=IntegrationStatus.INTEGRATED,
                head=tip,
                commits=commits,
                commits_omitted=omitted,
            )
        return _integrated(clone, _MergePlan(onto=onto, tip=tip), request.report_commits)


def _rebase(
    path: Path,
    tree: Worktree,
    onto: str,
    found: tuple[list[CommitInfo], int],
    max_files: int,
) -> str | IntegrationResult:
    """Rebase the worktree's branch onto `onto`: its new tip, or the conflict it met."""
    rebased, _ = try_git(path, *_identity(path), "rebase", "--quiet", onto)
    if rebased:
        return head_sha(path)
    conflicts = lines(run_git(path, "diff", "--name-only", "--diff-filter=U"))
    try_git(path, "rebase", "--abort")
    return _kept(
        IntegrationStatus.CONFLICT,
        f"Rebasing {tree.branch} onto {onto[:12]} conflicts; the rebase was aborted "
        f"and branch {tree.branch} and worktree {path} are kept.",
        found,
        path,
        conflict_files=conflicts[:max_files],
    )


def _kept(
    status: IntegrationStatus,
    reason: str,
    found: tuple[list[CommitInfo], int],
    state_of: Path,
    *,
    uncommitted: list[str] | None = None,
    conflict_files: list[str] | None = None,
) -> IntegrationResult:
    """A result that keeps branch and worktree: the commits found and the state of `state_of`."""
    commits, omitted = found
    return IntegrationResult(
        status=status,
        reason=reason,
        commits=commits,
        commits_omitted=omitted,
        branch_kept=True,
        git_state=git_state(state_of),
        uncommitted=uncommitted or [],
        conflict_files=conflict_files or [],
    )


class _MergePlan(BaseModel):
    """The fast-forward an integration is about to make: from `onto` to `tip`.

    Written with `onto` alone before the rebase (so a retry knows a rebase it finds half done
    is codedesk's, not the agent's) and with `tip` before the fast-forward.
    """

    onto: str
    tip: str = ""


def _merged_before(
    clone: Path, plan_path: Path, request: IntegrationRequest
) -> IntegrationResult | None:
    """The result of a fast-forward an earlier attempt made, or began, before it died.

    One it finished brought its tip into HEAD. One it was killed in the middle of (a big clone:
    thousands of files written, HEAD not moved yet) is finished here when every changed path is
    as one end or the other has it, and refused, the clone untouched, when someone else changed
    files too (activities/git/fast_forward.py).
    """
    if not plan_path.is_file():
        return None
    plan = _MergePlan.model_validate_json(plan_path.read_text())
    if not plan.tip:
        return None
    cap = request.report_commits
    contained, _ = try_git(clone, "merge-base", "--is-ancestor", plan.tip, "HEAD")
    if contained:
        return _integrated(clone, plan, cap)
    resumed = finish_fast_forward(clone, plan.onto, plan.tip, request.report_files)
    if resumed is None:
        return None
    if resumed.refusal:
        tree = request.worktree
        return _kept(
            IntegrationStatus.REFUSED,
            f"{resumed.refusal} Branch {tree.branch} and worktree {tree.path} are kept.",
            _commits(clone, plan.onto, plan.tip, cap),
            clone,
        )
    return _integrated(clone, plan, cap)


def _integrated(clone: Path, plan: _MergePlan, cap: int) -> IntegrationResult:
    commits, omitted = _commits(clone, plan.onto, plan.tip, cap)
    return IntegrationResult(
        status=IntegrationStatus.INTEGRATED, head=plan.tip, commits=commits, commits_omitted=omitted
    )


def _abort_leftover_rebase(worktree: Path) -> None:
    """A rebase an earlier attempt began and left half done (its worker died) is undone."""
    if _mid_rebase(_git_dir(worktree)):
        run_git(worktree, "rebase", "--abort")


def _git_dir(checkout: Path) -> Path:
    return Path(run_git(checkout, "rev-parse", "--absolute-git-dir").strip())


def _mid_rebase(git_dir: Path) -> bool:
    return (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists()


def _clone_refusal(clone: Path, max_files: int) -> tuple[str, str]:
    """Why the clone must not be touched now (empty when it may be fast-forwarded), and the
    SHA of its HEAD.

    One `git status` names the changed files, the HEAD commit and the branch HEAD is on: one
    git process for what took four (issue 13). A shelf clone's git dir is its `.git` folder.
    """
    status = checkout_status(clone)
    if status.dirty:
        shown = ", ".join(status.dirty[:max_files])
        return f"The clone {clone} has uncommitted changes ({shown}); commit or stash them.", ""
    git_dir = clone / ".git"  # its own, inside it: activities/git_own_dir.py
    if _mid_rebase(git_dir):
        return f"The clone {clone} is in the middle of a rebase; finish or abort it.", status.head
    if (git_dir / "MERGE_HEAD").exists():
        return f"The clone {clone} is in the middle of a merge; finish or abort it.", status.head
    if not status.branch:
        return f"The clone {clone} has a detached HEAD; check out its branch.", status.head
    if not status.head:
        return f"The clone {clone} has no commit on {status.branch}; commit one first.", ""
    return "", status.head


def _commits(cwd: Path, base: str, tip: str, cap: int) -> tuple[list[CommitInfo], int]:
    """Commits in `base..tip`, oldest first, capped; and how many the cap left out."""
    return _capped(commit_log(cwd, f"{base}..{tip}"), cap)


def _capped(found: list[CommitInfo], cap: int) -> tuple[list[CommitInfo], int]:
    return found[:cap], max(0, len(found) - cap)


def _identity(cwd: Path) -> tuple[str, ...]:
    """A committer identity for the rebase when the host has none configured."""
    ok, email = try_git(cwd, "config", "--get", "user.email")
    return () if ok and email.strip() else FALLBACK_IDENTITY


def _delete_branch(clone: Path, branch: str) -> None:
    try_git(clone, "branch", "--quiet", "-D", branch)


def _go_on_from(path: Path, branch: str) -> None:
    """Put the new branch checked out at `path` on the tip of the job's kept `branch` (a
    continuation goes on from that job's work); only a job's own branch is taken."""
    if not JOB_BRANCH.fullmatch(branch):
        raise GitError(f"A continuation starts from a job's branch (worker/N), not {branch!r}.")
    run_git(path, "reset", "--hard", "-q", f"refs/heads/{branch}")


def _delete_branch_if_empty(clone: Path, worktree: Worktree) -> None:
    ok, tip = try_git(clone, "rev-parse", "--verify", "--quiet", f"refs/heads/{worktree.branch}")
    if ok and tip.strip() == worktree.base:
        _delete_branch(clone, worktree.branch)
