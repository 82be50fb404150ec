"""Property tests of the hold hook: any bytes, any environment, any answer; 0 or 2, never a pass.

Most examples run the hook's own entry point in this process (`surfaces.hook.main`, with its
file descriptors, environment and signal handlers put back after each call) for speed; a few
run the real hook (`python -I -S surfaces/hook.py`) as an agent CLI does. Without a hold channel
a held call can only be refused, so "exit 0" means exactly "the rule holds nothing for this call".
"""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from activities.agent.process.hook_settings import hook_argv
from activities.holds.channel import ChannelRules, write_hook_config
from desk.holds.held_calls import classify, with_cwd
from desk.holds.protocol import JOB_ENV, SOCKET_ENV, SOCKET_NAME, Reachable
from surfaces import hook
from tests.helpers.holds.push_commands import PREFIXES, PUSHES, WRAPS, json_values

JOB = 7
SUBPROCESS_EXAMPLES = 12
"""Examples through the real interpreter: each starts a Python process."""


@dataclass(frozen=True)
class Job:
    """A job's folder with its hook config, no channel served: the hook's environment."""

    folder: Path
    worktree: Path

    @property
    def env(self) -> dict[str, str]:
        return {JOB_ENV: str(JOB), SOCKET_ENV: str(self.folder / SOCKET_NAME)}


@dataclass(frozen=True)
class Done:
    code: int
    stdout: bytes
    stderr: bytes

    def __str__(self) -> str:
        return f"exit {self.code}\nstdout: {self.stdout!r}\nstderr: {self.stderr!r}"


@pytest.fixture(scope="module")
def job() -> Iterator[Job]:
    with tempfile.TemporaryDirectory() as base:
        folder, worktree = Path(base) / "jobs" / str(JOB), Path(base) / "worktree"
        folder.mkdir(parents=True)
        worktree.mkdir()
        rules = ChannelRules(
            worktree=str(worktree),
            hold_classes=(),
            hold_tools=(),
            wait=timedelta(seconds=5),
            preview_chars=500,
            max_request_bytes=1 << 20,
        )
        write_hook_config(folder, JOB, rules)
        yield Job(folder, worktree)


def in_process(data: bytes, env: dict[str, str], form: list[str]) -> Done:
    """`surfaces.hook.main` here; its output read from the descriptors it writes to."""
    names = [getattr(signal, name) for name in hook.SIGNALS]
    handlers = {number: signal.getsignal(number) for number in names}
    saved_env = {name: os.environ.get(name) for name in (JOB_ENV, SOCKET_ENV)}
    sys.stdout.flush()
    sys.stderr.flush()
    targets = sys.stdout.fileno(), sys.stderr.fileno()  # pytest's capture files, or 1 and 2
    saved_fds = os.dup(targets[0]), os.dup(targets[1])
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        os.dup2(out.fileno(), targets[0])
        os.dup2(err.fileno(), targets[1])
        try:
            for name in (JOB_ENV, SOCKET_ENV):
                os.environ.pop(name, None)
            os.environ.update(env)
            code = hook.main(form, io.BytesIO(data))
        finally:
            signal.alarm(0)
            for target, saved in zip(targets, saved_fds, strict=True):
                os.dup2(saved, target)
                os.close(saved)
            for name, value in saved_env.items():
                os.environ.pop(name, None)
                if value is not None:
                    os.environ[name] = value
            for number, handler in handlers.items():
                signal.signal(number, handler)
        out.seek(0)
        err.seek(0)
        return Done(code, out.read(), err.read())


def in_subprocess(data: bytes, env: dict[str, str], form: list[str]) -> Done:
    done = subprocess.run(
        [*hook_argv(sys.executable)[:-2], *form],
        input=data,
        env=env,
        capture_output=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[2],
    )
    return Done(done.returncode, done.stdout, done.stderr)


def claude_form(form: list[str]) -> bool:
    return "claude" in " ".join(form)


def assert_fails_closed(done: Done, form: list[str], *, reason_is_ours: bool = True) -> None:
    """0 or 2, never a traceback; a refusal says why, and in Claude Code's form denies so."""
    assert done.code in (0, 2), done
    assert b"Traceback" not in done.stderr, done
    if done.code == 0:
        return
    assert done.stderr.strip() and done.stderr.endswith(b"\n"), done
    if reason_is_ours:
        assert b"may not run" in done.stderr, done
    if claude_form(form):
        decision = json.loads(done.stdout)["hookSpecificOutput"]
        assert decision["permissionDecision"] == "deny", done
        reason = decision["permissionDecisionReason"].encode("utf-8", "backslashreplace")
        assert reason + b"\n" == done.stderr, done
    else:
        assert done.stdout == b"", done


def assert_no_decision(done: Done) -> None:
    """Exit 0 with no output: the agent CLI's own permission rules still apply (no allow)."""
    assert done.code == 0 and done.stdout == b"" and done.stderr == b"", done


def harmless(data: bytes, worktree: Path) -> bool:
    """Whether the bytes are a readable call the rule holds nothing for (the hook's contract)."""
    try:
        document = json.loads(data.decode("utf-8"))
        json.dumps(document, ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError, UnicodeError):
        return False
    if not isinstance(document, dict):
        return False
    tool = document.get("tool", document.get("tool_name"))
    if not isinstance(tool, str) or not tool:
        return False
    call = document["input"] if "input" in document else document.get("tool_input", {})
    read = with_cwd(tool, call, document.get("cwd"))
    return not classify(tool, read, str(worktree)).classes


TOOLS = st.sampled_from(["Bash", "shell", "exec", "Write", "Edit", "Read", "Glob", "WebFetch", ""])
COMMANDS = st.one_of(
    st.sampled_from(["ls -la", "git status", "rm -rf build", "cat README.md", "git push"]),
    st.text(max_size=40),
    json_values,
)


@st.composite
def calls(draw: st.DrawFn) -> dict[str, Any]:
    """A tool call in codedesk's or Claude Code's form, with odd fields now and then."""
    tool = draw(st.one_of(TOOLS, json_values))
    fields = st.sampled_from(["command", "cmd", "file_path", "path", "workdir", "content"])
    call = draw(st.one_of(st.dictionaries(fields, COMMANDS, max_size=3), json_values))
    claude = draw(st.booleans())
    document: dict[str, Any] = (
        {"tool_name": tool, "tool_input": call} if claude else {"tool": tool, "input": call}
    )
    cwd = draw(st.one_of(st.none(), st.sampled_from(["/", "/tmp", "src", ""]), json_values))
    if cwd is not None:
        document["cwd"] = cwd
    return document


def encoded(document: Any) -> bytes:
    return json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass")


hook_input = st.one_of(
    st.binary(max_size=300),
    calls().map(encoded),
    json_values.map(encoded),
    st.tuples(calls().map(encoded), st.integers(0, 300), st.binary(min_size=1, max_size=3)).map(
        lambda t: t[0][: t[1]] + t[2] + t[0][t[1] :]
    ),
)
FORMS = st.sampled_from([[], ["--format", "claude"], ["--format=plain"], ["--format", "codex"]])


@given(hook_input, FORMS)
@example(b'{"tool": "Bash", "input": {"command": "ls"}}', [])
@example(b'{"tool": "Bash", "input": {"command": "\\ud800 ls"}}', ["--format", "claude"])
@example(b'{"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": "/"}', [])
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_any_bytes_are_answered_0_only_for_a_call_the_rule_holds_nothing_for(
    job: Job, data: bytes, form: list[str]
) -> None:
    done = in_process(data, job.env, form)
    assert_fails_closed(done, form)
    if done.code == 0:
        assert_no_decision(done)
    assert (done.code == 0) == harmless(data, job.worktree), done


def wrapped_push(push: str, prefixes: list[str], wraps: list[Callable[[str], str]]) -> str:
    command = "".join(prefixes) + push
    for wrap in wraps:
        command = wrap(command)
    return command


@given(
    PUSHES,
    st.lists(PREFIXES, max_size=2),
    st.lists(st.sampled_from(WRAPS), max_size=3),
    st.sampled_from(["codedesk", "claude", "codex"]),
    FORMS,
)
def test_a_held_call_is_never_allowed(
    job: Job,
    push: str,
    prefixes: list[str],
    wraps: list[Callable[[str], str]],
    shape: str,
    form: list[str],
) -> None:
    command = wrapped_push(push, prefixes, wraps)
    document: dict[str, Any] = {
        "codedesk": {"tool": "Bash", "input": {"command": command}},
        "claude": {"tool_name": "Bash", "tool_input": {"command": command}, "cwd": "/"},
        "codex": {"tool": "shell", "input": {"command": ["bash", "-lc", command]}},
    }[shape]
    done = in_process(encoded(document), job.env, form)
    assert done.code == 2, done
    assert b"allow" not in done.stdout, done
    assert_fails_closed(done, form)


env_text = st.one_of(
    st.text(st.characters(blacklist_characters="\x00"), max_size=30),
    st.sampled_from(["7", "07", "7 ", "+7", "0", "8", "-7", "7.0", "٧", "9" * 30]),
)


@given(env_text, st.one_of(st.none(), env_text, st.sampled_from(["", "/", "/dev/null"])))
@example("07", None)
@example("8", None)
@example("7", "/nonexistent/hold.sock")
def test_any_job_environment_is_a_refusal_unless_it_is_the_jobs_own(
    job: Job, number: str, socket_path: str | None
) -> None:
    """`None` names the job's own socket path (next to its config)."""
    own = job.env[SOCKET_ENV]
    env = {JOB_ENV: number, SOCKET_ENV: own if socket_path is None else socket_path}
    done = in_process(encoded({"tool": "Bash", "input": {"command": "ls"}}), env, [])
    assert_fails_closed(done, [])
    ours = socket_path in (None, own) and number.isascii() and number.isdigit()
    assert (done.code == 0) == (ours and int(number) == JOB), done


ANSWERS = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda v: encoded(v) + b"\n"),
    st.fixed_dictionaries(
        {
            "verdict": st.one_of(
                st.sampled_from(["allowed", "approved", "declined", "Allowed"]), json_values
            )
        },
        optional={"reason": json_values, "by": json_values, "approval_id": json_values},
    ).map(lambda v: encoded(v) + b"\n"),
)


def answer_allows(answer: bytes) -> bool:
    """Whether the channel's answer is one the hook may act on as a pass."""
    try:
        document = json.loads(answer.split(b"\n", 1)[0].decode("utf-8"))
    except (ValueError, RecursionError, UnicodeError):
        return False
    return isinstance(document, dict) and document.get("verdict") in ("allowed", "approved")


@given(ANSWERS, FORMS)
@example(b'{"verdict": "approved", "by": "alice"}\n', ["--format", "claude"])
@example(b'{"verdict": "allowed"}', [])
@example(b"", [])
@example(b'{"verdict": "declined", "reason": " "}\n', [])
def test_a_held_call_passes_only_on_a_well_formed_allow_from_its_channel(
    job: Job, answer: bytes, form: list[str]
) -> None:
    path = job.folder / SOCKET_NAME
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with Reachable(str(path)) as address:
        listener.bind(address)
    listener.listen(1)

    listener.settimeout(0.2)
    finished = threading.Event()

    def answer_once() -> None:
        """Answer the first connection with `answer`; give up once the hook has returned."""
        while not finished.is_set():
            try:
                peer, _ = listener.accept()
            except TimeoutError:
                continue
            with peer:
                peer.settimeout(30)
                received = b""
                while b"\n" not in received:
                    chunk = peer.recv(65536)
                    if not chunk:
                        break
                    received += chunk
                peer.sendall(answer)
            return

    server = threading.Thread(target=answer_once, daemon=True)
    server.start()
    try:
        done = in_process(
            encoded({"tool": "Bash", "input": {"command": "git push"}}), job.env, form
        )
    finally:
        finished.set()
        server.join()
        listener.close()
        path.unlink()
    assert_fails_closed(done, form, reason_is_ours=False)
    assert (done.code == 0) == answer_allows(answer), done
    if done.code == 0 and claude_form(form) and b'"approved"' in answer:
        decision = json.loads(done.stdout)["hookSpecificOutput"]
        assert decision["permissionDecision"] == "allow", done
    elif done.code == 0:
        assert_no_decision(done)


# Through the real interpreter, as an agent CLI runs it: a few examples, each a new process.

ENV_NAMES = st.one_of(
    st.sampled_from(
        ["PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONWARNINGS", "LANG",
         "LC_ALL", "PYTHONIOENCODING", "PYTHONUTF8", "HOME", "TMPDIR", "PYTHONSAFEPATH"]
    ),
    st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ_", min_size=1, max_size=10).filter(
        lambda name: not name.startswith(("LD_", "GLIBC", "MALLOC"))
    ),
)  # fmt: skip


@given(
    hook_input,
    st.dictionaries(ENV_NAMES, st.text(st.characters(blacklist_characters="\x00"), max_size=20)),
    st.booleans(),
    FORMS,
)
@settings(max_examples=SUBPROCESS_EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
def test_the_real_hook_process_answers_0_or_2_whatever_its_input_and_environment(
    job: Job, data: bytes, extra: dict[str, str], own_job: bool, form: list[str]
) -> None:
    env = {**extra, **job.env} if own_job else {**job.env, **extra, JOB_ENV: "8"}
    done = in_subprocess(data, env, form)
    assert_fails_closed(done, form)
    if done.code == 0:
        assert_no_decision(done)
    assert (done.code == 0) == (own_job and harmless(data, job.worktree)), (
        f"{done}\nenv: {shlex.join(f'{k}={v}' for k, v in extra.items())}"
    )
