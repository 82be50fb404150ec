#!/usr/bin/env python3
"""A fake coding agent for the tests: runs scripted steps in the current git worktree.

Usage: ``python3 tests/helpers/programs/scripted_agent.py STEP [STEP ...]``. Standard library only,
so any python3 can run it. Steps run in order; each prints one line to stdout (flushed), so a test
can follow the agent's progress in the job's log.

Steps:
    write:PATH=TEXT            write TEXT (``\\n`` escapes become newlines) to PATH, making dirs
    append:PATH=TEXT           the same, appending
    commit:MESSAGE             ``git add -A`` and commit; nothing to commit is not an error
    sleep:SECONDS              sleep (a float)
    sleep-first:SECONDS        sleep only when CODEDESK_INTERRUPTED is not "1"
    wait:PATH                  wait until PATH exists (at most 120 s, then exit 3)
    if-first:STEP              run STEP only when CODEDESK_INTERRUPTED is not "1"
    if-told:STEP               run STEP only when the job's messages file (CODEDESK_MESSAGES)
                               holds a message; print each message it holds first
    grandchild:SECONDS[:PIDFILE]
                               start a sleeping grandchild in our process group, write its pid
                               (when PIDFILE is given); its command line carries our steps
                               after GRANDCHILD, so a test finds it on the host by our tag
    escape:SECONDS             start a child in a session of its own that starts a grandchild;
                               both sleep (they left the agent's process group on purpose)
    background:SECONDS         start a sleeper in a session of its own that keeps our stdout
    require:PATH=TEXT          exit 4 unless PATH holds exactly TEXT (``\\n`` escapes)
    write-pwd:NAME=TEXT        write TEXT to NAME in the directory $PWD names
    write-home:NAME=TEXT       write TEXT to NAME in the directory $HOME names
    env-all                    print the names of every environment variable, and HOME and PWD
    pidfile:PATH               write our own pid to PATH
    mark:PATH                  append "run <CODEDESK_JOB> interrupted=<0|1>" to PATH
    mark                       print that line with the host's monotonic clock (ns) after it
                               (the job's agent log keeps it: a sandboxed agent writes nowhere
                               but its worktree; tests/helpers/agent_pids.py reads the marks back)
    say:TEXT                   print TEXT as it is
    say-many:N                 print "line 1" .. "line N"
    env:PATH                   write the CODEDESK_* environment as a JSON object to PATH
    exit:CODE                  exit with CODE at once
    crash                      kill ourselves with SIGKILL
    hold:JSON                  ask the hold hook about a call (JSON on its stdin), run as an
                               agent CLI runs it (``$CODEDESK_HOLD_COMMAND``); when it
                               refuses, the next step (the held call) is skipped
    hold-bg:JSON               the same, left running in the background (not waited for)
    hooks:N:JSON               ask the hook about the same call N times; print how many ran
    busy:SECONDS               use the CPU for SECONDS of CPU time (busy work)
    wait-file:PATH             wait until PATH exists (at most two minutes), then go on
    usage:JSON                 report usage on the hold channel: the JSON object's fields, with
                               "kind": "usage" and the job's number, one line (no answer)
    fetch:URL                  GET URL (through the proxy the environment names) and read
                               the body to its end without printing it; then print its size
    obey:N                     wait until the job's messages file (CODEDESK_MESSAGES) holds N
                               messages (at most 120 s, then exit 3), then run the text of
                               each, in order, as a step (a person's message says what to do)

An unknown or malformed step prints an error to stderr and exits 2. After the last step the
agent prints "scripted agent: done" and exits 0.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

AUTHOR_NAME = "Scripted Agent"
AUTHOR_EMAIL = "agent@codedesk.invalid"
WAIT_LIMIT = 120.0
"""How long a `wait:PATH` step waits for its file before the agent gives up."""


class StepError(Exception):
    """A step that cannot be understood: the script, not the agent, is wrong."""


def say(line: str) -> None:
    print(line, flush=True)


def unescape(text: str) -> str:
    return text.replace("\\n", "\n")


def split_assignment(arg: str, step: str) -> tuple[str, str]:
    path, sep, text = arg.partition("=")
    if not sep or not path:
        raise StepError(f"step {step!r} needs PATH=TEXT")
    return path, text


def number(value: str, step: str, kind: Callable[[str], float] = float) -> float:
    try:
        return kind(value)
    except ValueError:
        raise StepError(f"step {step!r} needs a number, not {value!r}") from None


def interrupted() -> bool:
    return os.environ.get("CODEDESK_INTERRUPTED") == "1"


def write_text(arg: str, step: str, mode: str) -> None:
    path, text = split_assignment(arg, step)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open(mode, encoding="utf-8", newline="") as handle:
        handle.write(unescape(text))
    say(f"scripted agent: {'append' if mode == 'a' else 'write'} {path}")


def require_text(arg: str, step: str) -> None:
    path, text = split_assignment(arg, step)
    target = Path(path)
    found = target.read_text(encoding="utf-8") if target.is_file() else None
    if found != unescape(text):
        print(f"scripted agent: {path} holds {found!r}, not {unescape(text)!r}", file=sys.stderr)
        sys.exit(4)
    say(f"scripted agent: {path} is as required")


def git(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    # Hooks off and no signing: the agent's commits must not depend on the host's git setup.
    command = ["git", "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgsign=false", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, check=False)


def commit(message: str) -> None:
    if not message:
        raise StepError("step 'commit' needs a MESSAGE")
    added = git("add", "-A")
    if added.returncode != 0:
        fail(f"git add failed: {added.stderr.strip()}", code=1)
    if not git("status", "--porcelain").stdout.strip():
        # A re-run after a crash finds its work already committed: that is not a failure.
        say(f"scripted agent: nothing to commit for {message!r}")
        return
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME=AUTHOR_NAME,
        GIT_AUTHOR_EMAIL=AUTHOR_EMAIL,
        GIT_COMMITTER_NAME=AUTHOR_NAME,
        GIT_COMMITTER_EMAIL=AUTHOR_EMAIL,
    )
    done = git("commit", "--quiet", "-m", message, env=env)
    if done.returncode != 0:
        fail(f"git commit failed: {(done.stderr or done.stdout).strip()}", code=1)
    say(f"scripted agent: commit {message!r}")


GRANDCHILD = "scripted-agent-grandchild"
"""The word before the agent's steps in a grandchild's command line
(tests/helpers/agent_pids.py)."""


def grandchild(arg: str, step: str) -> None:
    seconds, sep, pidfile = arg.partition(":")
    if sep and not pidfile:
        raise StepError(f"step {step!r} needs SECONDS[:PIDFILE]")
    duration = number(seconds, step)
    # Same process group on purpose: the tests check that killing the agent's group reaches it.
    code = f"import time; time.sleep({duration!r})"
    child = subprocess.Popen(
        [sys.executable or "python3", "-c", code, GRANDCHILD, *sys.argv[1:]],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    if pidfile:
        Path(pidfile).write_text(f"{child.pid}\n", encoding="utf-8")
    # Not waited for: mark it reaped so Popen's destructor does not warn about it.
    child.returncode = 0
    say(f"scripted agent: grandchild {child.pid} sleeps {duration:g}s")


def wait_for(path: str, step: str) -> None:
    if not path:
        raise StepError(f"step {step!r} needs a PATH")
    say(f"scripted agent: wait for {path}")
    deadline = time.monotonic() + WAIT_LIMIT
    while not Path(path).exists():
        if time.monotonic() > deadline:
            fail(f"{path} did not appear within {WAIT_LIMIT:g}s", code=3)
        time.sleep(0.1)


SLEEP_TREE = """
import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(%r)"], start_new_session=True)
time.sleep(%r)
"""


def escape(arg: str, step: str) -> None:
    duration = number(arg, step)
    code = SLEEP_TREE % (duration, duration)
    child = subprocess.Popen(
        [sys.executable or "python3", "-c", code],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    child.returncode = 0  # never waited for, on purpose
    say(f"scripted agent: escaped child {child.pid} sleeps {duration:g}s")


def background(arg: str, step: str) -> None:
    duration = number(arg, step)
    # stdout is inherited: the sleeper holds the pipe the worker reads the agent's output from.
    child = subprocess.Popen(
        [sys.executable or "python3", "-c", f"import time; time.sleep({duration!r})"],
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    child.returncode = 0
    say(f"scripted agent: background {child.pid} sleeps {duration:g}s")


HOOK = (
    ["sh", "-c", os.environ["CODEDESK_HOLD_COMMAND"]]
    if os.environ.get("CODEDESK_HOLD_COMMAND")
    else [sys.executable, "-I", "-m", "surfaces.hook"]
)
"""The hook as the job gives it to a command agent, else by module (outside a job)."""


def hold(request: str) -> bool:
    """Ask the hold hook (this Python's) whether the next step may run."""
    done = subprocess.run(HOOK, input=request, capture_output=True, text=True)
    if done.returncode == 0:
        say("scripted agent: hold allowed")
        return True
    say(f"scripted agent: hold refused ({done.returncode}): {done.stderr.strip()}")
    return False


def hold_in_background(request: str) -> None:
    hook = subprocess.Popen(
        HOOK, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    assert hook.stdin is not None
    hook.stdin.write(request.encode())
    hook.stdin.close()
    hook.returncode = 0  # not waited for: mark it reaped so Popen does not warn
    say("scripted agent: hold in the background")


def many_holds(arg: str, step: str) -> None:
    count, sep, request = arg.partition(":")
    if not sep:
        raise StepError(f"step {step!r} needs N:JSON")
    ran = sum(
        subprocess.run(HOOK, input=request, capture_output=True, text=True).returncode == 0
        for _ in range(int(number(count, step, int)))
    )
    say(f"scripted agent: {ran} of {count} hooked calls allowed")


def busy(seconds: float) -> None:
    say(f"scripted agent: busy for {seconds:g}s of CPU")
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def wait_for_file(arg: str, step: str) -> None:
    if not arg:
        raise StepError(f"step {step!r} needs a PATH")
    say(f"scripted agent: waiting for {arg}")
    for _ in range(1200):
        if Path(arg).exists():
            return
        time.sleep(0.1)
    fail(f"{arg} never appeared", code=1)


def report_usage(fields: str) -> None:
    import socket

    message = {**json.loads(fields), "kind": "usage", "job": int(os.environ["CODEDESK_JOB"])}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as channel:
        channel.connect(os.environ["CODEDESK_HOLD_SOCKET"])
        channel.sendall(json.dumps(message).encode() + b"\n")
    say("scripted agent: usage reported")


def fetch(url: str) -> None:
    import urllib.request

    # Quiet while it reads: a test of the work clock tells this traffic from output.
    with urllib.request.urlopen(url, timeout=600) as response:
        size = len(response.read())
    say(f"scripted agent: fetched {size} bytes")


def obey(arg: str, step: str) -> None:
    wanted = int(number(arg, step, int))
    path = Path(os.environ.get("CODEDESK_MESSAGES", ""))
    if not os.environ.get("CODEDESK_MESSAGES"):
        fail("CODEDESK_MESSAGES is not set: this agent gets no messages", code=3)
    say(f"scripted agent: waiting for {wanted} messages")
    deadline = time.monotonic() + WAIT_LIMIT
    while True:
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
        if len(lines) >= wanted:
            break
        if time.monotonic() > deadline:
            fail(f"{len(lines)} of {wanted} messages came within {WAIT_LIMIT:g}s", code=3)
        time.sleep(0.05)
    for line in lines[:wanted]:
        message = json.loads(line)
        say(f"scripted agent: message {message['seq']} from {message['from']}: {message['text']}")
        run_step(message["text"])


def told() -> bool:
    """Print the messages the job's messages file holds; whether it holds any."""
    path = Path(os.environ.get("CODEDESK_MESSAGES") or "/nonexistent")
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    for line in lines:
        message = json.loads(line)
        say(f"scripted agent: told {message['seq']} by {message['from']}: {message['text']}")
    return bool(lines)


def run_step(step: str) -> bool:
    """Run one step; False when the next step must be skipped (a refused hold)."""
    name, _, arg = step.partition(":")
    if name == "hold":
        return hold(arg)
    if name == "if-first":
        if interrupted():
            say(f"scripted agent: {arg!r} skipped (interrupted before)")
            return True
        return run_step(arg)
    if name == "if-told":
        if not told():
            say(f"scripted agent: {arg!r} skipped (no message)")
            return True
        return run_step(arg)
    if name == "hold-bg":
        hold_in_background(arg)
    elif name == "hooks":
        many_holds(arg, step)
    elif name == "busy":
        busy(number(arg, step))
    elif name == "wait-file":
        wait_for_file(arg, step)
    elif name == "fetch":
        fetch(arg)
    elif name == "obey":
        obey(arg, step)
    elif name == "usage":
        report_usage(arg)
    elif name == "write":
        write_text(arg, step, "w")
    elif name == "append":
        write_text(arg, step, "a")
    elif name == "require":
        require_text(arg, step)
    elif name == "commit":
        commit(arg)
    elif name == "sleep":
        seconds = number(arg, step)
        say(f"scripted agent: sleep {seconds:g}s")
        time.sleep(seconds)
    elif name == "sleep-first":
        seconds = number(arg, step)
        if interrupted():
            say("scripted agent: sleep-first skipped (interrupted before)")
        else:
            say(f"scripted agent: sleep-first {seconds:g}s")
            time.sleep(seconds)
    elif name == "wait":
        wait_for(arg, step)
    elif name == "grandchild":
        grandchild(arg, step)
    elif name == "escape":
        escape(arg, step)
    elif name == "background":
        background(arg, step)
    elif name in ("write-pwd", "write-home"):
        path, text = split_assignment(arg, step)
        folder = os.environ.get("PWD" if name == "write-pwd" else "HOME", ".")
        write_text(f"{folder}/{path}={text}", step, "w")
    elif name == "env-all" and not arg:
        shown = {"names": sorted(os.environ), "HOME": os.environ.get("HOME", "")}
        shown["PWD"] = os.environ.get("PWD", "")
        say("scripted agent: env " + json.dumps(shown, sort_keys=True))
    elif name == "pidfile":
        if not arg:
            raise StepError("step 'pidfile' needs a PATH")
        Path(arg).write_text(f"{os.getpid()}\n", encoding="utf-8")
        say(f"scripted agent: pid {os.getpid()}")
    elif step == "mark":
        job = os.environ.get("CODEDESK_JOB", "-")
        flag = os.environ.get("CODEDESK_INTERRUPTED") or "0"
        say(f"scripted agent: mark run {job} interrupted={flag} at {time.monotonic_ns()}")
    elif name == "mark":
        if not arg:
            raise StepError("step 'mark' needs a PATH")
        job = os.environ.get("CODEDESK_JOB", "-")
        flag = os.environ.get("CODEDESK_INTERRUPTED") or "0"
        with open(arg, "a", encoding="utf-8") as handle:
            handle.write(f"run {job} interrupted={flag}\n")
        say(f"scripted agent: mark {arg}")
    elif name == "say":
        say(arg)
    elif name == "say-many":
        for index in range(1, int(number(arg, step, int)) + 1):
            print(f"line {index}")
        sys.stdout.flush()
    elif name == "env":
        if not arg:
            raise StepError("step 'env' needs a PATH")
        found = {k: v for k, v in os.environ.items() if k.startswith("CODEDESK_")}
        Path(arg).write_text(json.dumps(found, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        say(f"scripted agent: env {sorted(found)}")
    elif name == "exit":
        code = int(number(arg, step, int))
        say(f"scripted agent: exit {code}")
        sys.exit(code)
    elif name == "crash" and not arg:
        say("scripted agent: crash")
        os.kill(os.getpid(), signal.SIGKILL)
    else:
        raise StepError(f"unknown step {step!r}")
    return True


def fail(message: str, code: int) -> NoReturn:
    sys.stdout.flush()
    print(f"scripted agent: {message}", file=sys.stderr, flush=True)
    sys.exit(code)


def main(argv: list[str]) -> int:
    skip = False
    for step in argv:
        if skip:
            say(f"scripted agent: skipped {step!r} (held)")
            skip = False
            continue
        try:
            skip = not run_step(step)
        except StepError as error:
            fail(str(error), code=2)
    say("scripted agent: done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
