"""A command's own words in a failure (git's, gh's, an agent CLI's): scrubbed, then cut to
CODEDESK_DIAGNOSTIC_CHARS."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from activities.agent.streams.codex_stream import CodexStream
from activities.agent.streams.stream import ClaudeStream, translator_for
from activities.diagnostics import quoted, set_diagnostic_chars
from activities.forge.gh import require_login
from activities.git.git_commands import run_git
from desk.errors import ForgeError, GitError
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


def _gh_saying(folder: Path, text: str) -> Path:
    """A `gh` that says `text` on stderr and fails."""
    program = folder / "gh"
    program.write_text(f"#!/bin/sh\nprintf %s '{text}' >&2\nexit 1\n")
    program.chmod(0o755)
    return program


@pytest.mark.parametrize("chars", [100, 2000])
def test_what_gh_says_follows_the_setting(tmp_path: Path, limit: None, chars: int) -> None:
    set_diagnostic_chars(chars)
    said = "gh: " + "z" * 1500
    with pytest.raises(ForgeError) as refused:
        require_login(str(_gh_saying(tmp_path, said)), tmp_path)
    message = str(refused.value)
    if chars < len(said):
        assert "characters cut" in message and len(message) < chars + 250, message
    else:
        assert said in message, message


@pytest.mark.parametrize("chars", [100, 2000])
def test_an_agent_clis_own_error_text_follows_the_setting(limit: None, chars: int) -> None:
    set_diagnostic_chars(chars)
    why = "API Error: " + "w" * 1500
    claude = ClaudeStream()
    result = {"type": "result", "subtype": "success", "is_error": True, "result": why}
    claude.feed(json.dumps(result) + "\n")
    codex = CodexStream()
    codex.feed(json.dumps({"type": "turn.failed", "error": {"message": why}}) + "\n")
    aider = translator_for(["aider", "--message=fix"])
    aider.feed(f"litellm.APIConnectionError: {why}\n")
    failures = [claude.failure, codex.failure, aider.failure]
    for failure, starts in zip(
        failures,
        ["Claude Code could not finish: ", "codex could not finish: ", "aider could not work: "],
        strict=True,
    ):
        assert failure is not None and failure.startswith(starts), failure
        if chars < len(why):
            assert "characters cut" in failure and len(failure) < chars + 100, failure
        else:
            assert failure.endswith(why), failure
