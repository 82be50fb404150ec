"""A job's branch against the clone's HEAD, as `codedesk diff` and the review card show it."""

from __future__ import annotations

from pathlib import Path

from activities.git.git_commands import run_git, try_git
from desk.errors import ShelfError
from desk.payloads.conversation.review_payloads import JobDiff, JobDiffInput


def job_diff(clone: Path, request: JobDiffInput) -> JobDiff:
    """The job's commits (`HEAD...branch`: since the branch left HEAD's line) as a stat and a
    diff, cut to `max_chars`; a `ShelfError` that says so when the branch is gone."""
    ref = f"refs/heads/{request.branch}"
    found, _ = try_git(clone, "rev-parse", "--verify", "--quiet", ref)
    if not request.branch or not found:
        raise ShelfError(
            f"Job {request.number}'s branch {request.branch or '(none yet)'} is not in the "
            f"clone of {request.repo}: it was integrated or discarded, or not cut yet. "
            f"`codedesk show {request.number}` says which."
        )
    head = run_git(clone, "rev-parse", "HEAD").strip()
    span = f"HEAD...{ref}"
    stat = run_git(clone, "diff", "--stat", "--no-color", span)
    if request.stat_only:
        return JobDiff(head=head, stat=stat)
    diff = run_git(clone, "diff", "--no-color", "--no-ext-diff", span)
    cut = max(0, len(diff) - request.max_chars)
    return JobDiff(head=head, stat=stat, diff=diff[: request.max_chars], diff_cut=cut)
