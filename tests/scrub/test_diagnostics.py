"""Git's own words in a failure: scrubbed, then cut to CODEDESK_DIAGNOSTIC_CHARS."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from activities.diagnostics import quoted, set_diagnostic_chars
from activities.git.commands import run_git
from desk.errors import GitError
from desk.scrub import DIAGNOSTIC_CHARS
from tests.helpers.repos import git

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2


@pytest.fixture
def limit() -> Iterator[None]:
    yield
    set_diagnostic_chars(DIAGNOSTIC_CHARS)


def test_a_long_git_error_is_cut_keeping_its_start_and_end(tmp_path: Path, limit: None) -> None:
    git(tmp_path, "init", "-q")
    revision = "x" * 5000
    with pytest.raises(GitError) as refused:
        run_git(tmp_path, "show", revision)
    message = str(refused.value)
    assert message.startswith(f"git show failed in {tmp_path}: stderr: 'fatal: "), message
    assert "characters cut" in message
    assert len(message) < DIAGNOSTIC_CHARS + 200, len(message)
    assert message.rstrip().endswith("x'"), message


def test_the_cap_is_the_setting_and_a_credential_is_scrubbed_before_the_cut(limit: None) -> None:
    set_diagnostic_chars(100)
    text = f"remote: https://user:{TOKEN}@example.com/x " + "y" * 1000
    shown = quoted(text)
    assert TOKEN not in shown and TOKEN[:12] not in shown
    assert shown.startswith("remote: https://***@example.com/x")
    assert len(shown) < 160
    assert quoted("short") == "short"
