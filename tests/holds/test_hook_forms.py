"""Each agent CLI's hook adapter: its input read as the shell rule's call, its output as the
CLI refuses, and every way it can fail closed (the real hook process; opencode's real plugin
under node)."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import textwrap
import tomllib
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from activities.agent.process.hook_settings import (
    codex_hooks,
    hook_argv,
    hook_script,
    write_claude_hook_settings,
)
from activities.agent.setup.opencode_plugin import (
    config_content,
    held_rules,
    owner_config,
    write_opencode_plugin,
)
from activities.holds.channel import ChannelRules, write_hook_config
from desk.errors import AgentCommandError
from desk.holds.held_calls import classify
from desk.holds.protocol import SOCKET_NAME
from surfaces.hook_forms import CLAUDE, CODEX, OPENCODE, PLAIN, read_call
from tests.helpers.cli_helpers import cli_env

HOOK = hook_argv(sys.executable)[:-2]
WORKTREE = "/work/tree"


def outside_patch(path: str) -> str:
    return f"*** Begin Patch\n*** Add File: {path}\n+planted\n*** End Patch\n"


def held(tool: Any, call: Any) -> tuple[str, ...]:
    return classify(tool, call, WORKTREE).classes


# Reading each CLI's input.


def test_codex_input_is_claude_codes_shape_and_its_patch_is_read_as_apply_patch() -> None:
    bash = {"tool_name": "Bash", "tool_input": {"command": "git push"}, "cwd": "/tmp"}
    call = read_call(CODEX, bash)
    assert (call.tool, call.input, call.cwd) == ("Bash", {"command": "git push"}, "/tmp")
    patch = {"tool_name": "apply_patch", "tool_input": {"command": outside_patch("/etc/x")}}
    call = read_call(CODEX, patch)
    assert call.tool == "shell" and call.input["command"][0] == "apply_patch"
    assert held(call.tool, call.input) == ("outside_workspace",)
    inside = read_call(CODEX, {**patch, "tool_input": {"command": outside_patch("src/a.py")}})
    assert held(inside.tool, inside.input) == ()


@pytest.mark.parametrize(
    ("command", "session"),
    [
        ("bash", True),
        ("bash -i", True),
        ("TERM=dumb sh -s", True),
        ("/usr/bin/python3 -", True),
        ("python3", True),
        ("bash -lc 'git status'", False),
        ("python3 tools/check.py", False),
        ("ls -la", False),
    ],
)
def test_a_codex_command_that_starts_a_session_is_held_for_every_class(
    command: str, session: bool
) -> None:
    # codex types into a running command with write_stdin, which its hook never sees.
    call = read_call(CODEX, {"tool_name": "Bash", "tool_input": {"command": command}})
    assert (call.tool == "codex_session") == session, call.tool
    if session:
        assert set(held(call.tool, call.input)) >= {"push", "destructive", "privileged"}


@pytest.mark.parametrize("tool", ["patch", "apply_patch"])
def test_opencode_patch_tools_are_read_as_apply_patch(tool: str) -> None:
    # opencode 1.18 gives a model of the GPT family `apply_patch` instead of `edit` and `write`.
    call = read_call(OPENCODE, {"tool": tool, "args": {"patchText": outside_patch("/etc/x")}})
    assert call.tool == "shell" and call.input["command"][0] == "apply_patch"
    assert held(call.tool, call.input) == ("outside_workspace",)


def test_a_patch_without_text_is_held_for_every_class() -> None:
    call = read_call(CODEX, {"tool_name": "apply_patch", "tool_input": {"command": 7}})
    assert set(held(call.tool, call.input)) >= {"push", "destructive", "outside_workspace"}
    call = read_call(OPENCODE, {"tool": "patch", "args": "not an object"})
    assert set(held(call.tool, call.input)) >= {"push", "destructive", "outside_workspace"}


@pytest.mark.parametrize(
    ("tool", "args", "rule_tool"),
    [
        ("edit", {"filePath": "/etc/passwd", "oldString": "a", "newString": "b"}, "Edit"),
        ("write", {"filePath": "../outside.txt", "content": "x"}, "Write"),
        ("multiedit", {"filePath": "/tmp/x", "edits": []}, "MultiEdit"),
    ],
)
def test_opencode_file_tools_are_read_as_writes_of_their_file(
    tool: str, args: dict[str, Any], rule_tool: str
) -> None:
    call = read_call(OPENCODE, {"tool": tool, "args": args, "directory": WORKTREE})
    assert call.tool == rule_tool and call.input["file_path"] == args["filePath"]
    assert call.cwd == WORKTREE
    assert held(call.tool, call.input) == ("outside_workspace",)
    inside = read_call(OPENCODE, {"tool": tool, "args": {**args, "filePath": "src/a.py"}})
    assert held(inside.tool, inside.input) == ()


def test_opencode_shell_and_patch_calls_meet_the_shell_rule() -> None:
    call = read_call(OPENCODE, {"tool": "bash", "args": {"command": "git push origin main"}})
    assert held(call.tool, call.input) == ("push",)
    patch = read_call(OPENCODE, {"tool": "patch", "args": {"patchText": outside_patch("/x")}})
    assert held(patch.tool, patch.input) == ("outside_workspace",)
    read = read_call(OPENCODE, {"tool": "read", "args": {"filePath": "/etc/hosts"}})
    assert (read.tool, held(read.tool, read.input)) == ("read", ())


# The real hook process in each form: what the CLI reads back.


@pytest.fixture
def job(tmp_path: Path) -> dict[str, str]:
    """A job's hook config with no channel served: a held call is refused, as if unanswered."""
    folder = tmp_path / "jobs" / "7"
    folder.mkdir(parents=True)
    (tmp_path / "worktree").mkdir()
    rules = ChannelRules(
        worktree=str(tmp_path / "worktree"),
        hold_classes=(),
        hold_tools=(),
        wait=timedelta(seconds=5),
        preview_chars=500,
        max_request_bytes=1 << 20,
    )
    write_hook_config(folder, 7, rules)
    return cli_env(CODEDESK_JOB="7", CODEDESK_HOLD_SOCKET=str(folder / SOCKET_NAME))


def hook(env: dict[str, str], form: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*HOOK, "--format", form], input=data, env=env, capture_output=True, timeout=60
    )


CODEX_PUSH = {"tool_name": "Bash", "tool_input": {"command": "git push"}, "cwd": "/tmp"}
OPENCODE_PUSH = {"tool": "bash", "args": {"command": "git push"}, "directory": "/tmp"}


@pytest.mark.parametrize(
    ("form", "push", "harmless"),
    [
        (CODEX, CODEX_PUSH, {**CODEX_PUSH, "tool_input": {"command": "ls"}}),
        (OPENCODE, OPENCODE_PUSH, {**OPENCODE_PUSH, "args": {"command": "ls"}}),
    ],
)
def test_a_refusal_is_exit_2_with_the_reason_on_stderr_and_no_json(
    job: dict[str, str], form: str, push: dict[str, Any], harmless: dict[str, Any]
) -> None:
    done = hook(job, form, json.dumps(push).encode())
    # codex treats any JSON decision it does not support as a failed hook, and runs the call.
    assert done.returncode == 2 and done.stdout == b"", done
    assert b"hold channel cannot be reached" in done.stderr, done
    allowed = hook(job, form, json.dumps(harmless).encode())
    assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, b"", b""), allowed


@pytest.mark.parametrize("form", [CODEX, OPENCODE])
@pytest.mark.parametrize("data", [b"", b"\xff\xfe", b"[1]", b'{"tool": 7}', b"{" * 100_000])
def test_odd_input_in_each_form_is_a_refusal(job: dict[str, str], form: str, data: bytes) -> None:
    done = hook(job, form, data)
    assert done.returncode == 2 and done.stdout == b"", done
    assert b"may not run" in done.stderr, done


@pytest.mark.parametrize("form", [CODEX, OPENCODE])
def test_no_job_is_a_refusal_in_each_form(form: str) -> None:
    done = hook(cli_env(), form, json.dumps(CODEX_PUSH).encode())
    assert done.returncode == 2 and b"CODEDESK_JOB" in done.stderr, done


def test_only_claude_gets_json() -> None:
    from surfaces.hook_forms import approved_output, refused_output

    assert json.loads(refused_output(CLAUDE, "no"))["hookSpecificOutput"]["permissionDecision"]
    for form in (PLAIN, CODEX, OPENCODE):
        assert approved_output(form, "yes") == refused_output(form, "no") == ""


# How each CLI is told to run the hook.


def test_claude_hook_entries_ask_claude_code_to_refuse_a_failed_hook(tmp_path: Path) -> None:
    path = write_claude_hook_settings(tmp_path, timedelta(minutes=10), timedelta(minutes=11))
    [entry] = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert [hook["onFailure"] for hook in entry["hooks"]] == ["block"]


def test_codex_hooks_are_a_toml_override_with_a_timeout_past_the_wait() -> None:
    value = codex_hooks(timedelta(minutes=10), timedelta(minutes=11), python="/py thon")
    key, _, toml = value.partition("=")
    assert key == "hooks.PreToolUse"
    [entry] = tomllib.loads(f"x = {toml}")["x"]
    assert entry["matcher"] == ".*"
    [hook] = entry["hooks"]
    assert hook["type"] == "command" and hook["timeout"] == 660
    assert hook["command"] == (
        f"'/py thon' -I -S {shlex.quote(hook_script())} --format codex || exit 2"
    )
    with pytest.raises(AgentCommandError, match="CODEDESK_HOOK_TIMEOUT"):
        codex_hooks(timedelta(minutes=10), timedelta(minutes=10))


def test_opencode_config_keeps_the_owners_and_adds_the_plugin_and_the_deny(tmp_path: Path) -> None:
    owner = owner_config(
        json.dumps({"model": "m", "plugin": ["theirs"], "permission": {"bash": "ask", "x": 1}})
    )
    merged = json.loads(config_content(tmp_path / "p.js", owner))
    assert merged["model"] == "m"
    assert merged["plugin"] == ["theirs", (tmp_path / "p.js").as_uri()]
    assert merged["permission"] == {"bash": "deny", "edit": "deny", "x": 1}
    assert held_rules(owner) == {"bash": "ask"}
    assert owner_config(None) == {} == owner_config("")
    for bad in ("{not json", "[1]"):
        with pytest.raises(AgentCommandError, match="OPENCODE_CONFIG_CONTENT"):
            owner_config(bad)


# opencode's plugin itself, under node: it throws on anything but the hook's exit 0.

NODE = shutil.which("node")


def run_plugin(plugin: Path, tool: str, args: dict[str, Any], env: dict[str, str]) -> Any:
    """Load the plugin as opencode does, run its config hook and one tool call; what came out."""
    script = textwrap.dedent(
        f"""
        const plugin = await import({json.dumps(plugin.as_uri())});
        const hooks = await plugin.CodedeskHold({{ directory: "/tmp" }});
        const config = {{ permission: {{ bash: "deny", edit: "deny", webfetch: "ask" }} }};
        await hooks.config(config);
        let outcome = "ran";
        try {{
          await hooks["tool.execute.before"]({{ tool: {json.dumps(tool)} }},
                                             {{ args: {json.dumps(args)} }});
        }} catch (error) {{
          outcome = "refused: " + error.message;
        }}
        console.log(JSON.stringify({{ permission: config.permission, outcome }}));
        """
    )
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done
    return json.loads(done.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_plugin_asks_the_real_hook_and_throws_its_refusal(
    job: dict[str, str], tmp_path: Path
) -> None:
    plugin = write_opencode_plugin(
        tmp_path / "plugin", timedelta(seconds=5), restored={"bash": "ask"}
    )
    said = run_plugin(plugin, "bash", {"command": "git push origin main"}, job)
    # Loaded, it lifts codedesk's deny and gives the owner's own rules back.
    assert said["permission"] == {"webfetch": "ask", "bash": "ask"}
    assert said["outcome"].startswith("refused: "), said
    assert "hold channel cannot be reached" in said["outcome"], said
    assert run_plugin(plugin, "bash", {"command": "ls"}, job)["outcome"] == "ran"


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("python", ["/nonexistent/python", "/bin/false"])
def test_the_plugin_refuses_when_the_hook_cannot_run(
    python: str, job: dict[str, str], tmp_path: Path
) -> None:
    plugin = write_opencode_plugin(tmp_path / "plugin", timedelta(seconds=5), python=python)
    said = run_plugin(plugin, "bash", {"command": "ls"}, job)
    assert said["outcome"].startswith("refused: "), said
    assert "may not run" in said["outcome"], said
