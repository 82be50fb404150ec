"""A repository's worktree set-up and check as plain lines."""

from __future__ import annotations

from desk.records.repo_setup import RepoSetup


def setup_lines(repo: str, setup: RepoSetup) -> list[str]:
    """What runs and what is copied in each of `repo`'s worktrees, one line each."""
    if setup.empty():
        return [f"{repo}: no worktree set-up or check (set them with `codedesk repo set`)."]
    blocks = "blocks integration" if setup.check_blocks else "does not block integration"
    if setup.check and setup.check_blocks:
        blocks += _retries(setup.check_retries)
    return [
        f"{repo}:",
        f"  set-up: {setup.setup or '(none)'}",
        f"  copied: {', '.join(setup.copy_files) or '(none)'}",
        f"  check:  {setup.check or '(none)'}" + (f" (a failure {blocks})" if setup.check else ""),
        f"  ships:  {'as a pull request' if setup.pull_requests else 'onto the default branch'}",
        f"  review: {'every job waits for a person' if setup.review else 'as each task asks'}",
    ]


def _retries(rounds: int) -> str:
    if not rounds:
        return ", at once: it does not go back to the agent"
    times = {1: "once", 2: "twice"}.get(rounds, f"{rounds} times")
    return f", after it went back to the agent {times}"
