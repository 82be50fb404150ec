"""An agent's approved push to a branch other than the default, carried out on the host.

The agent asked for `git push origin HEAD:feature`; an owner approved the card that named the
job's HEAD then. codedesk pushes exactly that commit, never forced, with the host's own
credentials, after checking the clone's one push destination and that the branch is not the
origin's default (whose pushes go through a change report and `Ship` only). Safe to run twice:
a branch already at the SHA counts as pushed.
"""

from __future__ import annotations

from temporalio import activity

from activities.git.git_commands import run_git, try_git
from activities.off_loop import off_the_loop
from activities.shelf_paths import existing_clone
from activities.ship.ship_activities import default_branch, push_destination, push_lock, remote_tip
from desk.config.settings import DeskSettings
from desk.errors import GitError, ShipRefusal
from desk.failures import desk_failures
from desk.payloads.ship_requests import BranchPushInput, BranchPushResult, BranchPushStatus


class BranchPushActivities:
    """Run on the host that owns the shelf."""

    def __init__(self, settings: DeskSettings) -> None:
        self.settings = settings

    @activity.defn
    async def push_branch(self, request: BranchPushInput) -> BranchPushResult:
        """Push exactly `request.sha` to `request.branch` on origin, never forced."""
        return await off_the_loop(self._push, request)

    def _push(self, request: BranchPushInput) -> BranchPushResult:
        sha, branch = request.sha, request.branch
        ref = f"refs/heads/{branch}"
        with desk_failures():
            clone = existing_clone(self.settings, request.repo)
            push_destination(clone)  # the one credential-free URL, before anything is fetched
            with push_lock(clone):
                if remote_tip(clone, ref) == sha:
                    return _pushed(request, already=True)
                if default_branch(clone) == branch:
                    raise ShipRefusal(
                        f"{branch} is origin's default branch: codedesk pushes there only the "
                        "SHA a change report names (`codedesk report`, then `codedesk push`). "
                        "Nothing was pushed."
                    )
                known, _ = try_git(clone, "cat-file", "-e", f"{sha}^{{commit}}")
                if not known:
                    raise ShipRefusal(
                        f"{sha[:12]} is not in the clone (the agent rewrote its history after "
                        "asking?). Nothing was pushed."
                    )
                try:
                    run_git(clone, "push", "--quiet", "--porcelain", "origin", f"{sha}:{ref}")
                except GitError as error:
                    if remote_tip(clone, ref) == sha:  # a dead attempt's push landed meanwhile
                        return _pushed(request, already=True)
                    raise ShipRefusal(
                        f"origin did not take {sha[:12]} on {branch} (codedesk never forces a "
                        f"push): {error}. Nothing was pushed."
                    ) from None
                return _pushed(request, already=False)


def _pushed(request: BranchPushInput, *, already: bool) -> BranchPushResult:
    return BranchPushResult(
        status=BranchPushStatus.PUSHED,
        branch=request.branch,
        sha=request.sha,
        approval_id=request.approval_id,
        approved_by=request.approved_by,
        already=already,
    )
