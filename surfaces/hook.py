"""The agent's hold hook, `<python> -I -S <this file> [--format FORM]`: it fails closed.

It reads one tool call on stdin as bytes, in the form of the agent CLI that runs it (codedesk's
`{"tool", "input"}`, Claude Code's or codex's PreToolUse input, codedesk's opencode plugin's
request: surfaces/hook_forms.py translates each). A call the rules hold nothing for is answered here
(exit 0, no decision, so the agent CLI's own permission rules still apply) and tallied to the
job's hold channel; a held call is sent over the channel and waits for a person. Anything it
cannot decide (odd bytes, a bad config, no channel, no answer in time, a crash, a signal) is a
refusal with its reason: exit 2 with the reason on stderr, and with `--format claude` also
Claude Code's deny JSON on stdout. A held call nobody answered within the live window of a
job that can suspend is deferred (`--format claude`: Claude Code's `defer` decision, exit 0,
and the CLI ends without running it; `claude -p --resume` asks this hook again); in any other
form it is refused with a note to stop (codedesk then ends a codex run and resumes its thread
with the person's answer). The exit
code is only ever 0 or 2: every CLI's adapter blocks on 2 (Claude Code, codex, codedesk's
opencode plugin).

Standard library and the pure rule modules only, imported lazily so that even a failing import
is a refusal; `-I` keeps the worktree's own packages out of `sys.path`, and `-S` skips `site`
(a third of the hook's start): run by its file, the hook appends its own package root to `sys.path`,
after the standard library, so no installed package can stand in for a standard module.
`python -I -m surfaces.hook` runs the same hook where `site` finds codedesk.
"""

from __future__ import annotations

import json
import os
import signal
import sys

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the hook's start-up never imports typing
if TYPE_CHECKING:
    from typing import Any, BinaryIO

    from desk.holds.protocol import HookConfig

ALLOWED = 0
REFUSED = 2
PLAIN = "plain"
CLAUDE = "claude"
MAX_STDIN_BYTES = 64 << 20
MAX_CONFIG_BYTES = 1 << 20
MAX_ANSWER_BYTES = 1 << 20
MAX_JOB_DIGITS = 12
SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGALRM", "SIGUSR1", "SIGUSR2")
NOT_RUN = "the call may not run"


class Refusal(Exception):
    """A reason the call may not run."""


def main(argv: list[str] | None = None, stdin: BinaryIO | None = None) -> int:
    """Answer one hook call; returns 0 (may run) or 2 (refused). Never raises."""
    form = CLAUDE
    try:
        form = _form(sys.argv[1:] if argv is None else argv)
        _refuse_on_signals(form)
        return _decide(form, stdin if stdin is not None else sys.stdin.buffer)
    except Refusal as refusal:
        return _refuse(form, str(refusal))
    except BaseException as error:  # noqa: BLE001 - every failure is a refusal, never a pass
        name = type(error).__name__
        return _refuse(form, f"codedesk's hold hook failed ({name}: {error}); {NOT_RUN}.")


def _form(argv: list[str]) -> str:
    from surfaces.hook_forms import FORMS

    if argv == []:
        return PLAIN
    for form in FORMS:
        if argv in (["--format", form], [f"--format={form}"]):
            return form
    raise Refusal(f"codedesk's hold hook was given unknown arguments {argv!r}; {NOT_RUN}.")


def _decide(form: str, stdin: BinaryIO) -> int:
    from desk.holds.protocol import HOLD, TALLY

    job = _job()
    socket_path, config = _config(job)
    document = _request(stdin.read(MAX_STDIN_BYTES + 1))
    from surfaces.hook_forms import read_call

    asked = read_call(form, document)
    tool, call, cwd = asked.tool, asked.input, asked.cwd
    if not isinstance(tool, str) or not tool:
        raise Refusal(
            f"The hold request names no tool: give `tool` (or Claude Code's `tool_name`); "
            f"{NOT_RUN}."
        )

    from desk.holds.held_calls import classify, with_cwd

    read = with_cwd(tool, call, cwd)
    verdict = classify(tool, read, config.worktree, config.hold_classes, config.hold_tools)
    if not verdict.classes:
        _tally(socket_path, job, tool, TALLY)
        return ALLOWED
    # The form names the CLI, whose own tools' schemas the worker has for the card.
    message = {"kind": HOLD, "job": job, "tool": tool, "input": call, "cwd": cwd, "form": form}
    if isinstance(document.get("parameters"), dict):
        message["parameters"] = document["parameters"]
    line = json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"
    if len(line) > config.max_request_bytes:
        raise Refusal(
            f"This {tool} call is held ({', '.join(verdict.classes)}) and its input is "
            f"{len(line)} bytes, more than the {config.max_request_bytes} a hold may carry "
            f"(CODEDESK_HOLD_REQUEST_BYTES); {NOT_RUN}. Make the call smaller."
        )
    answer = _ask(socket_path, line, config.wait_seconds, job)
    return _answered(form, answer)


def _job() -> int:
    from desk.holds.protocol import JOB_ENV

    text = os.environ.get(JOB_ENV, "")
    if not (text.isascii() and text.isdigit() and len(text) <= MAX_JOB_DIGITS and int(text)):
        raise Refusal(
            f"{JOB_ENV} is not set to a job number ({text[:20]!r}), so there is no job to ask; "
            f"the hold hook runs inside a codedesk job, and {NOT_RUN}."
        )
    return int(text)


def _config(job: int) -> tuple[str, HookConfig]:
    from desk.holds.protocol import CONFIG_NAME, SOCKET_ENV, HookConfig

    given = os.environ.get(SOCKET_ENV, "")
    if not given.startswith("/"):
        raise Refusal(f"{SOCKET_ENV} names no hold channel of job {job}; {NOT_RUN}.")
    socket_path = given
    try:
        with open(os.path.join(os.path.dirname(given), CONFIG_NAME), "rb") as handle:
            config = HookConfig.from_json(json.loads(handle.read(MAX_CONFIG_BYTES)))
    except (OSError, ValueError, RecursionError) as error:
        raise Refusal(
            f"The hold hook cannot read job {job}'s hook config ({error}); {NOT_RUN}."
        ) from None
    if config.job != job:
        raise Refusal(f"The hook config is job {config.job}'s, not job {job}'s; {NOT_RUN}.")
    return socket_path, config


def _request(data: bytes) -> dict[str, Any]:
    if len(data) > MAX_STDIN_BYTES:
        raise Refusal(f"The hold request is larger than {MAX_STDIN_BYTES} bytes; {NOT_RUN}.")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Refusal(f"The hold request is not UTF-8 ({error.reason}); {NOT_RUN}.") from None
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise Refusal(f"The hold request is not JSON ({str(error)[:200]}); {NOT_RUN}.") from None
    try:
        json.dumps(document, ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError):
        raise Refusal(f"The hold request is not valid Unicode text; {NOT_RUN}.") from None
    if not isinstance(document, dict):
        raise Refusal(f"The hold request is not a JSON object; {NOT_RUN}.")
    return document


def _tally(socket_path: str, job: int, tool: str, kind: str) -> None:
    """Tell the channel one call ran, without waiting: a lost tally costs only a count."""
    from desk.holds.protocol import connect

    try:
        channel = connect(socket_path, blocking=False)
    except OSError:
        return
    try:
        channel.send(json.dumps({"kind": kind, "job": job, "tool": tool[:100]}).encode() + b"\n")
    except OSError:
        pass
    finally:
        channel.close()


def _ask(socket_path: str, line: bytes, wait: float, job: int) -> dict[str, Any]:
    from desk.holds.protocol import ANSWER_SLACK_SECONDS, connect

    deadline = wait + ANSWER_SLACK_SECONDS
    signal.alarm(int(deadline) + 5)  # a last resort behind the socket's own timeout
    try:
        channel = connect(socket_path)
    except OSError as error:
        raise Refusal(
            f"Job {job}'s hold channel cannot be reached ({error.strerror or error}): is the "
            f"job still running? {NOT_RUN[0].upper()}{NOT_RUN[1:]}."
        ) from None
    with channel:
        channel.settimeout(deadline)
        try:
            channel.sendall(line)
            received = b""
            while b"\n" not in received and len(received) <= MAX_ANSWER_BYTES:
                chunk = channel.recv(65536)
                if not chunk:
                    break
                received += chunk
        except TimeoutError:
            raise Refusal(f"Job {job} did not answer within {deadline:g} s; {NOT_RUN}.") from None
        except OSError as error:
            raise Refusal(f"Job {job}'s hold channel failed ({error}); {NOT_RUN}.") from None
    try:
        answer = json.loads(received.split(b"\n", 1)[0].decode("utf-8"))
    except (ValueError, RecursionError):
        raise Refusal(f"Job {job} gave no readable answer; {NOT_RUN}.") from None
    if not isinstance(answer, dict) or not isinstance(answer.get("verdict"), str):
        raise Refusal(f"Job {job} gave no readable answer; {NOT_RUN}.")
    return answer


def _answered(form: str, answer: dict[str, Any]) -> int:
    """The job answers with data (a verdict, why, who); its words are the surface's."""
    verdict = answer["verdict"]
    if verdict == "allowed":
        return ALLOWED
    if verdict == "deferred":
        from surfaces.hook_forms import deferred_output
        from surfaces.render.words.hold_answers import answer_words

        # Only Claude Code defers: in any other form the call is refused, never let through,
        # with a note to stop (codex: codedesk ends it and resumes its thread with the answer).
        if form != CLAUDE:
            raise Refusal(answer_words(answer))
        _write(sys.stdout.fileno(), deferred_output())
        return ALLOWED
    from surfaces.render.words.hold_answers import answer_words

    said = answer_words(answer)
    if verdict == "approved":
        from surfaces.hook_forms import approved_output

        _write(sys.stdout.fileno(), approved_output(form, said))
        return ALLOWED
    return _refuse(form, said)


def _refuse(form: str, reason: str) -> int:
    """Exit 2 blocks in every agent CLI; Claude Code also gets its deny JSON."""
    try:
        from surfaces.hook_forms import refused_output

        _write(sys.stdout.fileno(), refused_output(form, reason))
    except BaseException:  # noqa: BLE001 - the exit code and stderr still refuse
        pass
    _write(sys.stderr.fileno(), reason + "\n")
    return REFUSED


def _write(fd: int, text: str) -> None:
    data = text.encode("utf-8", "backslashreplace")
    try:
        while data:
            data = data[os.write(fd, data) :]
    except OSError:
        pass  # nobody reads it; the exit code still says what happened


def _refuse_on_signals(form: str) -> None:
    def refused(number: int, _frame: object) -> None:
        name = signal.Signals(number).name
        _refuse(form, f"codedesk's hold hook was stopped by {name}; {NOT_RUN}.")
        os._exit(REFUSED)

    for name in SIGNALS:
        signal.signal(getattr(signal, name), refused)


if __name__ == "__main__":
    if not __package__:  # run by its file under `-I -S`: its package root, after the stdlib
        sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    os._exit(main())
