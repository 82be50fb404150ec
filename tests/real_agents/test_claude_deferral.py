"""What issue 28's suspension builds on, proven on the real Claude Code (the preset's proven
version and the registry's newest): a PreToolUse hook that answers `defer` in `-p` mode ends
the CLI with `stop_reason: "tool_deferred"` and the deferred call, the call not run; `claude -p
--resume <session>` runs the hook again for that call, which then lets it run once or refuses
it with a reason the model reads."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.real_agents.fake_anthropic import FakeAnthropic, Say, ToolCall, serving
from tests.real_agents.install import release_cli

pytestmark = pytest.mark.timeout(240)
PACKAGE = "@anthropic-ai/claude-code"
CALL = "echo ran >> out.txt"


@pytest.fixture(scope="module", params=["pinned", "newest"])
def claude(request: pytest.FixtureRequest) -> Path:
    return release_cli("claude", request.param)


def hook_answering(tmp_path: Path, decision: str, reason: str = "") -> Path:
    """A settings file whose PreToolUse hook answers `decision` for every Bash call."""
    answer = {"hookEventName": "PreToolUse", "permissionDecision": decision}
    if reason:
        answer["permissionDecisionReason"] = reason
    hook = tmp_path / f"hook-{decision}.py"
    hook.write_text(
        "import sys\nsys.stdin.read()\n"
        f"print({json.dumps(json.dumps({'hookSpecificOutput': answer}))})\n"
    )
    settings = tmp_path / f"settings-{decision}.json"
    command = f"python3 {hook}"
    matcher = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [matcher]}}))
    return settings


def result_of(claude: Path, fake: FakeAnthropic, tmp_path: Path, *args: str) -> dict[str, Any]:
    """Run `claude -p` in the worktree with `args`; its stream's `result` event."""
    env = dict(
        os.environ,
        ANTHROPIC_BASE_URL=fake.url,
        ANTHROPIC_API_KEY="sk-ant-test-not-a-key",
        CLAUDE_CONFIG_DIR=str(tmp_path / "config"),
        DISABLE_AUTOUPDATER="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    ran = subprocess.run(
        [str(claude), "-p", "--output-format", "stream-json", "--verbose", *args],
        cwd=tmp_path / "wt",
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    events = [json.loads(line) for line in ran.stdout.splitlines() if line.startswith("{")]
    [result] = [event for event in events if event.get("type") == "result"]
    assert isinstance(result, dict)
    return result


@pytest.mark.parametrize("answer", ["allow", "deny"])
def test_a_deferred_call_ends_the_cli_and_a_resume_asks_the_hook_again(
    claude: Path, tmp_path: Path, answer: str
) -> None:
    (tmp_path / "wt").mkdir()
    steps = [ToolCall("Bash", {"command": CALL, "description": "run it"}), Say("done")]
    with serving(FakeAnthropic(steps=steps)) as fake:
        deferred = result_of(
            claude, fake, tmp_path, "--settings", str(hook_answering(tmp_path, "defer")), "--", "go"
        )
        assert deferred["stop_reason"] == "tool_deferred", deferred
        assert deferred["deferred_tool_use"]["input"]["command"] == CALL, deferred
        assert not (tmp_path / "wt" / "out.txt").exists()
        then = hook_answering(tmp_path, answer, "declined by the owner" if answer == "deny" else "")
        resumed = result_of(
            claude, fake, tmp_path, "--settings", str(then), "--resume", deferred["session_id"]
        )
        assert resumed["stop_reason"] == "end_turn", resumed
        assert len(fake.conversation()) == 2  # the deferral asked nothing more of the model
        [told] = fake.tool_results()
    out = tmp_path / "wt" / "out.txt"
    if answer == "allow":
        assert out.read_text() == "ran\n"  # exactly once
    else:
        assert not out.exists() and "declined by the owner" in told, told
