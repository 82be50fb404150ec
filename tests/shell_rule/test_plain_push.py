"""Which pushes codedesk carries out itself: exactly a plain push of the job's work to origin."""

from __future__ import annotations

import pytest

from desk.shell_rule.plain_push import plain_push

BRANCH = "worker/7"


@pytest.mark.parametrize(
    ("command", "destination"),
    [
        ("git push origin HEAD:main", "main"),
        ("git push origin HEAD:refs/heads/main", "main"),
        ("  git push  origin   HEAD:main ", "main"),
        (f"git push origin {BRANCH}:main", "main"),
        (f"git push origin refs/heads/{BRANCH}:release/1.2", "release/1.2"),
        ("git push origin HEAD", BRANCH),
        (f"git push origin {BRANCH}", BRANCH),
        (["git", "push", "origin", "HEAD:main"], "main"),
    ],
)
def test_a_plain_push_names_its_destination(command: object, destination: str) -> None:
    assert plain_push(command, BRANCH) == destination


@pytest.mark.parametrize(
    "command",
    [
        "git push",  # where it goes is the agent's config
        "git push origin",
        "git push --force origin HEAD:main",
        "git push -f origin HEAD:main",
        "git push origin +HEAD:main",
        "git push origin :main",
        "git push origin --delete main",
        "git push upstream HEAD:main",
        "git push https://example.com/x.git HEAD:main",
        "git push origin main",  # the clone's branch, not the job's work
        "git push origin HEAD~1:main",
        "git push origin HEAD:main other",
        "git push origin HEAD:refs/tags/v1",
        "git push origin HEAD:-x",
        "git push origin HEAD:a..b",
        "git push origin HEAD:.hidden",
        "git push origin HEAD:HEAD",
        "git push origin HEAD:main.lock",
        "git -C ../other push origin HEAD:main",
        "git push origin HEAD:main && rm -rf x",
        "git push origin HEAD:main; true",
        "git push origin HEAD:$BRANCH",
        "git push origin 'HEAD:main'",
        "git push origin HEAD:main\n",
        "sh -c 'git push origin HEAD:main'",
        "env git push origin HEAD:main",
        "GIT_SSH_COMMAND=x git push origin HEAD:main",
        ["bash", "-lc", "git push origin HEAD:main"],
        ["git", "push", "origin", "HEAD:main x"],
        None,
        42,
    ],
)
def test_anything_else_is_not_plain(command: object) -> None:
    assert plain_push(command, BRANCH) is None


def test_without_a_branch_only_head_is_the_jobs_work() -> None:
    assert plain_push("git push origin HEAD:main", "") == "main"
    assert plain_push("git push origin HEAD", "") is None
