"""A pull request as codedesk opens it: its branch, base, title and body, made from a change
report (no I/O: the Ship workflow makes the plan, the push activity carries it out)."""

from __future__ import annotations

from desk.payloads.ship_payloads import ChangeReport, PullRequestPlan

BRANCH_PREFIX = "codedesk/"
TITLE_CHARS = 120
BODY_CHARS = 60_000
"""GitHub takes a body of 65,536 characters; the report is cut below that, saying so."""


def pull_request_plan(receipt: ChangeReport, job: int | None = None) -> PullRequestPlan:
    """The pull request of `receipt`: a branch named for the job (or for the SHA when the report
    is of the clone's HEAD, which no one job made), the report as its body."""
    branch = (
        f"{BRANCH_PREFIX}job-{job}" if job is not None else f"{BRANCH_PREFIX}{receipt.head[:12]}"
    )
    return PullRequestPlan(
        branch=branch,
        base=receipt.default_branch,
        title=_title(receipt),
        body=_body(receipt, job),
    )


def _title(receipt: ChangeReport) -> str:
    count = len(receipt.commits) + receipt.commits_omitted
    if count == 1 and receipt.commits:
        title = receipt.commits[0].subject or receipt.head[:12]
    else:
        title = f"{count} commits from codedesk ({receipt.head[:12]})"
    return title if len(title) <= TITLE_CHARS else f"{title[: TITLE_CHARS - 1]}…"


def _body(receipt: ChangeReport, job: int | None) -> str:
    made_by = f"job {job}" if job is not None else f"the clone of {receipt.repo}"
    lines = [
        f"Change report by codedesk of {made_by}: exactly `{receipt.head}` onto "
        f"`{receipt.default_branch}` (at `{receipt.remote_tip}` when reported).",
        "",
        "## Commits",
        "",
        *(f"- `{commit.sha[:12]}` {commit.subject}" for commit in receipt.commits),
    ]
    if receipt.commits_omitted:
        lines.append(f"- and {receipt.commits_omitted} more")
    lines += ["", "## Files", ""]
    lines += [f"- `{change.path}` +{change.added} -{change.deleted}" for change in receipt.files]
    if receipt.files_omitted:
        lines.append(f"- and {receipt.files_omitted} more")
    body = "\n".join(lines) + "\n"
    if len(body) > BODY_CHARS:
        body = body[:BODY_CHARS] + "\n\n(the report was cut here)\n"
    return body
