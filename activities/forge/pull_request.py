"""Shipping as a pull request: the reported SHA on a new branch of origin, and a pull request of
that branch onto the default branch, opened once however often the step is retried."""

from __future__ import annotations

import tempfile
from pathlib import Path

from activities.forge.gh import gh_output, gh_program, require_login
from activities.git.git_commands import run_git, try_git
from desk.errors import ShipRefusal
from desk.payloads.ship_payloads import ChangeReport, PullRequestPlan


def open_pull_request(
    clone: Path, receipt: ChangeReport, plan: PullRequestPlan
) -> tuple[str, bool]:
    """Push the SHA to the plan's branch (never forced) and open its pull request; the pull
    request's URL, and whether a retried attempt found the work done already.

    A retry after a crash finds the branch at the SHA (pushed already) and the pull request
    open (gh lists it by its branch), so neither happens twice.
    """
    program = gh_program()
    require_login(program, clone)
    ref = f"refs/heads/{plan.branch}"
    at = _remote_ref(clone, ref)
    if at and at != receipt.head:
        raise ShipRefusal(
            f"origin has a branch {plan.branch} at {at[:12]}, not at {receipt.head[:12]}: "
            "delete it or report again. Nothing was pushed."
        )
    found, _ = try_git(clone, "cat-file", "-e", f"{receipt.head}^{{commit}}")
    if not found:
        raise ShipRefusal(
            f"The clone has no commit {receipt.head}: report again. Nothing was pushed."
        )
    if not at:
        run_git(clone, "push", "--quiet", "--porcelain", "origin", f"{receipt.head}:{ref}")
    url = _open_one(program, clone, plan)
    return url, bool(at)


def _open_one(program: str, clone: Path, plan: PullRequestPlan) -> str:
    listed = gh_output(
        program,
        clone,
        "pr",
        "list",
        "--head",
        plan.branch,
        "--state",
        "all",
        "--json",
        "url",
        "--jq",
        '.[0].url // ""',
    ).strip()
    if listed:
        return listed
    with tempfile.NamedTemporaryFile("w", suffix=".md", prefix="codedesk-pr-") as body:
        body.write(plan.body)
        body.flush()
        said = gh_output(
            program,
            clone,
            "pr",
            "create",
            "--head",
            plan.branch,
            "--base",
            plan.base,
            "--title",
            plan.title,
            "--body-file",
            body.name,
        )
    lines = [line for line in said.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def _remote_ref(clone: Path, ref: str) -> str:
    out = run_git(clone, "ls-remote", "origin", ref).strip()
    return out.split()[0] if out else ""
