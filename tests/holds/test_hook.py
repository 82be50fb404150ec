"""The hold hook as an agent CLI runs it: a real process, any bytes, any environment; 0 or 2.

A harmless call is answered by the hook alone; a held call needs the job's hold channel. These
tests run without a channel (or with a silent one), so a held call shows as a refusal and a
harmless one as exit 0: that is how they tell held from harmless, from the outside.
"""

from __future__ import annotations

import json
import shlex
import signal
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from activities.agent.process.hook_settings import (
    hook_argv,
    hook_command,
    hook_script,
    write_claude_hook_settings,
)
from activities.holds.channel import ChannelRules, write_hook_config
from desk.holds.held_calls import classify, preview
from desk.holds.protocol import SOCKET_NAME, Reachable
from tests.helpers.cli_helpers import CODEDESK, cli_env, shown

HOOK = hook_argv(sys.executable)[:-2]
LS = {"tool": "Bash", "input": {"command": "ls -la"}}
PUSH = {"tool": "Bash", "input": {"command": "git push origin main"}}


@pytest.fixture
def job(tmp_path: Path) -> dict[str, str]:
    """A job's folder with its hook config (no channel served): the hook's environment."""
    folder = tmp_path / "home" / "jobs" / "7"
    worktree = tmp_path / "worktree"
    worktree.mkdir(parents=True)
    rules = ChannelRules(
        worktree=str(worktree),
        hold_classes=(),
        hold_tools=(),
        wait=timedelta(seconds=5),
        preview_chars=500,
        max_request_bytes=1 << 20,
    )
    folder.mkdir(parents=True)
    write_hook_config(folder, 7, rules)
    return cli_env(CODEDESK_JOB="7", CODEDESK_HOLD_SOCKET=str(folder / SOCKET_NAME))


def hook(
    env: dict[str, str], given: bytes | str | dict[str, Any], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    data = json.dumps(given).encode() if isinstance(given, dict) else given
    data = data.encode() if isinstance(data, str) else data
    return subprocess.run(
        [*HOOK, *args], input=data, env=env, cwd=cwd, capture_output=True, timeout=60
    )


def said(done: subprocess.CompletedProcess[bytes]) -> str:
    return f"exit {done.returncode}\nstdout: {done.stdout!r}\nstderr: {done.stderr!r}"


def test_a_harmless_call_is_answered_alone_with_no_decision(job: dict[str, str]) -> None:
    done = hook(job, LS, "--format", "claude")
    # Exit 0 and no JSON: Claude Code's own permission rules still apply (no "allow").
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b"", said(done)
    claude = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": LS["input"]}
    assert hook(job, claude).returncode == 0


def test_a_held_call_without_its_channel_is_refused_in_claude_form(job: dict[str, str]) -> None:
    done = hook(job, PUSH, "--format", "claude")
    assert done.returncode == 2, said(done)
    decision = json.loads(done.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "hold channel cannot be reached" in decision["permissionDecisionReason"]
    assert b"may not run" in done.stderr


DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b'{"tool": "Bash", "input": {"command": "\\ud800"}}', "not valid Unicode"),
        (DEEP, "not JSON"),
        (b'{"tool": "Bash", "input": {"command": "ls", "n": ' + b"9" * 5000 + b"}}", "not JSON"),
        (b"", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"input": {"command": "ls"}}', "names no tool"),
        (b'{"tool_name": 3}', "names no tool"),
    ],
    ids=["utf8", "surrogate", "deep", "digits", "empty", "array", "no-tool", "tool-number"],
)
def test_odd_bytes_are_a_refusal_with_a_reason(
    job: dict[str, str], given: bytes, reason: str
) -> None:
    for form in ([], ["--format", "claude"]):
        done = hook(job, given, *form)
        assert done.returncode == 2, said(done)
        assert reason in done.stderr.decode(), said(done)
        assert b"Traceback" not in done.stderr


@pytest.mark.parametrize(
    "call",
    [
        {"tool": "Bash", "input": {"command": 5}},
        {"tool": "Bash", "input": {"command": ["rm", 5]}},
        {"tool": "Bash", "input": {}},
        {"tool": "Bash", "input": "ls"},
        {"tool": "shell", "input": {"command": ["bash", "-lc", "git push"]}},
        {"tool": "RunTerminal", "input": {"cmd": "ls"}},
        {"tool": "Write", "input": {"content": "x"}},
    ],
    ids=["number", "mixed-list", "missing", "not-object", "codex-push", "unknown-tool", "no-path"],
)
def test_shapes_the_rule_cannot_read_are_held(job: dict[str, str], call: dict[str, Any]) -> None:
    done = hook(job, call)
    assert done.returncode == 2, said(done)  # held: it needed the (absent) channel


def test_claude_codes_cwd_is_where_the_command_runs(job: dict[str, str], tmp_path: Path) -> None:
    worktree = tmp_path / "worktree"
    (worktree / "src").mkdir()
    claude = {"tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}
    assert hook(job, {**claude, "cwd": str(worktree / "src")}).returncode == 0
    # After a `cd` out of the worktree, the same command deletes someone else's files.
    elsewhere = hook(job, {**claude, "cwd": str(tmp_path)})
    assert elsewhere.returncode == 2, said(elsewhere)


def test_a_codex_argv_list_is_read_as_the_command_it_is(job: dict[str, str]) -> None:
    assert hook(job, {"tool": "shell", "input": {"command": ["git", "status"]}}).returncode == 0
    verdict = classify("shell", {"command": ["bash", "-lc", "git push"]}, "/tmp")
    assert verdict.classes == ("push",)
    every = ("destructive", "outside_workspace", "privileged", "push")
    assert classify("Bash", {"command": 5}, "/tmp").classes == every
    assert classify("RunTerminal", {"cmd": "ls"}, "/tmp").classes == every
    # The settings may narrow the classes held, never the unreadable.
    assert classify("Bash", {}, "/tmp", hold_classes=["push"]).classes == ("push",)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CODEDESK_JOB", "²"),
        ("CODEDESK_JOB", ""),
        ("CODEDESK_JOB", "8"),  # not the config's job
        ("CODEDESK_JOB", "9" * 5000),
        ("CODEDESK_HOLD_SOCKET", "relative/hold.sock"),
        ("CODEDESK_HOLD_SOCKET", "/nonexistent/hold.sock"),
    ],
)
def test_an_odd_environment_is_a_refusal(job: dict[str, str], name: str, value: str) -> None:
    done = hook({**job, name: value}, LS)
    assert done.returncode == 2, said(done)
    assert b"may not run" in done.stderr and b"Traceback" not in done.stderr


@pytest.mark.parametrize("wait", [1e300, -1, "10", None, float("nan")])
def test_an_absurd_wait_in_the_config_is_a_refusal(job: dict[str, str], wait: Any) -> None:
    config = Path(job["CODEDESK_HOLD_SOCKET"]).with_name("hold.json")
    document = json.loads(config.read_text())
    config.unlink()
    config.write_text(json.dumps({**document, "wait_seconds": wait}))
    done = hook(job, LS)
    assert done.returncode == 2, said(done)
    assert b"hook config" in done.stderr


def test_unknown_arguments_are_a_refusal(job: dict[str, str]) -> None:
    done = hook(job, LS, "--format", "yaml")
    assert done.returncode == 2 and b"unknown arguments" in done.stderr, said(done)


def test_a_signal_while_a_hold_waits_is_a_refusal(job: dict[str, str]) -> None:
    path = Path(job["CODEDESK_HOLD_SOCKET"])
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with Reachable(str(path)) as address:
        silent.bind(address)
    silent.listen()
    try:
        process = subprocess.Popen(
            [*HOOK, "--format", "claude"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=job,
        )
        assert process.stdin is not None
        process.stdin.write(json.dumps(PUSH).encode())
        process.stdin.close()
        peer, _ = silent.accept()  # the hook is now waiting for an answer that never comes
        process.send_signal(signal.SIGTERM)
        assert process.stdout is not None and process.stderr is not None
        process.wait(timeout=30)
        out, err = process.stdout.read(), process.stderr.read()
        process.stdout.close()
        process.stderr.close()
        peer.close()
    finally:
        silent.close()
    assert process.returncode == 2, (out, err)
    assert b"stopped by SIGTERM" in err
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


# The hook cannot be made to pass by the worktree, a broken interpreter or a failing import.


def run_shell(
    command: str, env: dict[str, str], given: dict[str, Any], cwd: Path
) -> subprocess.CompletedProcess[bytes]:
    """Run a hook command the way Claude Code does: through the shell, in the worktree."""
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(given).encode(),
        env=env,
        cwd=cwd,
        capture_output=True,
        timeout=60,
    )


def test_a_worktree_with_its_own_packages_cannot_touch_the_hook(
    job: dict[str, str], tmp_path: Path
) -> None:
    worktree = tmp_path / "worktree"
    marker = tmp_path / "imported"
    for package in ("desk", "surfaces", "workflows"):
        (worktree / package).mkdir()
        (worktree / package / "__init__.py").write_text(
            f"open({str(marker)!r}, 'a').write({package!r})\nraise SystemExit(0)\n"
        )
    (worktree / "desk" / "hold_rules.py").write_text("def classify(*a, **k): return None\n")
    env = {**job, "PYTHONPATH": str(worktree), "PYTHONSAFEPATH": ""}
    harmless = run_shell(hook_command(), env, LS, worktree)
    assert harmless.returncode == 0, said(harmless)
    push = run_shell(hook_command(), env, PUSH, worktree)
    assert push.returncode == 2, said(push)
    assert not marker.exists(), marker.read_text()


def test_a_hook_whose_interpreter_is_missing_refuses(job: dict[str, str], tmp_path: Path) -> None:
    done = run_shell(hook_command(str(tmp_path / "no" / "python3")), job, LS, tmp_path)
    assert done.returncode == 2, said(done)


def test_a_hook_whose_imports_fail_refuses(job: dict[str, str], tmp_path: Path) -> None:
    # `None` in sys.modules makes importing the rule fail, as a broken install would.
    broken = (
        "import os, sys; sys.modules['desk.holds.held_calls'] = None; "
        "from surfaces.hook import main; os._exit(main(['--format', 'claude']))"
    )
    done = run_shell(
        f"{shlex.quote(sys.executable)} -I -c {shlex.quote(broken)}", job, LS, tmp_path
    )
    assert done.returncode == 2, said(done)
    assert b"ImportError" in done.stderr or b"ModuleNotFoundError" in done.stderr, said(done)
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_codedesk_hold_runs_the_same_hook(job: dict[str, str], tmp_path: Path) -> None:
    harmless = subprocess.run(
        [CODEDESK, "hold"], input=json.dumps(LS).encode(), env=job, capture_output=True
    )
    assert harmless.returncode == 0, said(harmless)
    held = subprocess.run(
        [CODEDESK, "hold", "--format", "claude"],
        input=b"\xff",
        env=job,
        capture_output=True,
    )
    assert held.returncode == 2 and b"not UTF-8" in held.stderr, said(held)


# The settings file Claude Code reads, and its timeout.


def test_the_hook_timeout_outlasts_the_hold_wait(tmp_path: Path) -> None:
    path = write_claude_hook_settings(tmp_path, timedelta(minutes=10), timedelta(minutes=11))
    [entry] = json.loads(path.read_text())["hooks"]["PreToolUse"]
    [command] = entry["hooks"]
    assert command["timeout"] == 660
    argv = shlex.split(command["command"])
    assert argv[:5] == [sys.executable, "-I", "-S", hook_script(), "--format"]
    assert command["command"].endswith("|| exit 2")
    with pytest.raises(Exception, match="CODEDESK_HOLD_WAIT.*CODEDESK_HOOK_TIMEOUT"):
        write_claude_hook_settings(tmp_path, timedelta(minutes=10), timedelta(minutes=10))


def test_a_job_whose_hold_wait_does_not_fit_is_refused(tmp_path: Path) -> None:
    env = cli_env(
        CODEDESK_HOME=str(tmp_path / "home"), CODEDESK_HOLD_WAIT="15m", CODEDESK_HOOK_TIMEOUT="10m"
    )
    done = subprocess.run(
        [CODEDESK, "task", "acme/api", "x"], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode != 0, shown(done)
    assert "CODEDESK_HOLD_WAIT" in done.stderr and "CODEDESK_HOOK_TIMEOUT" in done.stderr


@pytest.mark.parametrize(
    "command", ["approve", "decline", "withdraw", "report", "push", "mode", "worker", "up"]
)
def test_answering_shipping_or_hosting_is_refused_inside_a_job(
    command: str, tmp_path: Path
) -> None:
    args = {
        "report": ["acme/api"],
        "push": ["acme/api", "a" * 40],
        "mode": ["yolo", "on"],
        "worker": [],
        "up": [],
    }.get(command, ["approval-x"])
    env = cli_env(CODEDESK_HOME=str(tmp_path / "home"), CODEDESK_JOB="3")
    done = subprocess.run(
        [CODEDESK, command, *args], env=env, capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 1, shown(done)
    assert "does not run inside a codedesk job" in done.stderr, shown(done)


def test_a_preview_is_bounded_and_says_what_it_cut() -> None:
    big = {"file_path": "/x", "content": "y" * 2_000_000}
    shown_input = preview(big, 1000)
    assert len(json.dumps(shown_input)) < 2000
    assert shown_input["file_path"] == "/x"
    assert "more characters" in shown_input["content"]
    assert preview({"command": "ls"}, 1000) == {"command": "ls"}


def test_the_hook_starts_without_heavy_imports(job: dict[str, str]) -> None:
    probe = (
        "import sys, os, io; sys.stdin = io.TextIOWrapper(io.BytesIO(b'{}')); "
        "from surfaces.hook import main; main(['--format', 'claude'], io.BytesIO("
        + repr(json.dumps(LS).encode())
        + ")); heavy = sorted(m for m in ('pydantic', 'temporalio', 'typer', 'jsonschema', "
        "'discord', 'rich') if m in sys.modules); print(heavy)"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", probe], env=job, capture_output=True, text=True
    )
    assert done.stdout.strip() == "[]", done


# A deferred answer: Claude Code defers the call; any other CLI is refused, never let through,
# and told to stop (codedesk ends a codex run for it).


def answering(path: Path, answer: dict[str, Any]) -> tuple[socket.socket, Any]:
    """A channel at `path` that answers one hold request with `answer`."""
    import threading

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with Reachable(str(path)) as address:
        server.bind(address)
    server.listen()

    def serve() -> None:
        peer, _ = server.accept()
        with peer:
            peer.recv(1 << 20)
            peer.sendall(json.dumps(answer).encode() + b"\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return server, thread


@pytest.mark.parametrize("form", ["claude", "codex", "opencode", "plain"])
def test_a_deferred_answer_defers_in_claude_code_only(job: dict[str, str], form: str) -> None:
    deferred = {"verdict": "deferred", "why": "unanswered", "approval_id": "approval-1"}
    server, thread = answering(Path(job["CODEDESK_HOLD_SOCKET"]), deferred)
    try:
        args = [] if form == "plain" else ["--format", form]
        done = hook(job, PUSH, *args)
        thread.join(timeout=30)
    finally:
        server.close()
    if form == "claude":
        assert done.returncode == 0, said(done)
        decision = json.loads(done.stdout)["hookSpecificOutput"]
        assert decision == {"hookEventName": "PreToolUse", "permissionDecision": "defer"}
    else:
        # Refused with a note to stop: codedesk ends a codex run and resumes it with the answer.
        assert done.returncode == 2, said(done)
        assert b"held for a person (approval-1)" in done.stderr, said(done)
        assert b"Stop here and end your turn" in done.stderr, said(done)
