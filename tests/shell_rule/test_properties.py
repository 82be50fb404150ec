"""Property tests of the shell rule: any text is read without a crash, and a push is always held."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from desk.shell.lex import lex, simple_commands
from desk.shell_rule import rule as policy
from desk.shell_rule.rule import HoldClass, argv_hold_classes, shell_hold_classes
from desk.shell_rule.shell_calls import call_hold_classes
from desk.shell_rule.shell_paths import Workspace

WORKSPACE = "/srv/codedesk/jobs/7"
PIECES = [
    *"gitpush -c'\"$(){}[]*?;&|<>\\\n`=~/.,#!",
    "git",
    "push",
    " ",
    "$(",
    "$'",
    '$"',
    "${",
    "<<",
    "<<-",
    "<<<",
    "EOF",
    "<(",
    ">(",
    "2>&1",
    "&&",
    "||",
    "..",
    "bash",
    "sh -c",
    "xargs",
    "env",
    "cd",
    "rm -rf",
    "sudo",
    "codedesk",
    "\\\n",
    "\x00",
    "\udcff",
]
shellish = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@given(st.one_of(st.text(), shellish))
@example("echo " + "$(" * 500)
@example("'" * 1001)
@example("{a,b}" * 40)
@example("x{1..99999999}")
def test_any_text_is_read_without_a_crash(text: str) -> None:
    simple = list(simple_commands(lex(text)))
    assert simple[-1].end == ";"
    scan = policy._Scan(Workspace(WORKSPACE))
    try:
        scan.text(text, WORKSPACE, 0)  # the fallback that hides a crash is not in this path
    except policy._TooDeepError:
        pass
    assert shell_hold_classes(text, WORKSPACE) <= frozenset(HoldClass)


@given(st.lists(st.one_of(st.text(), st.integers(), st.none()), max_size=8))
def test_any_argument_list_is_read_without_a_crash(argv: list[object]) -> None:
    held = argv_hold_classes(argv, WORKSPACE)
    if not all(isinstance(word, str) for word in argv) or not argv:
        assert held == frozenset(HoldClass)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@given(
    st.one_of(st.sampled_from(["Bash", "shell", "exec", "Write", "Edit", "Read"]), json_values),
    st.one_of(
        st.dictionaries(st.sampled_from(["command", "cmd", "workdir"]), json_values), json_values
    ),
)
def test_any_call_is_classified_without_a_crash(tool: object, input: object) -> None:
    classes, action = call_hold_classes(tool, input, WORKSPACE)  # type: ignore[arg-type]
    assert set(classes) <= {hold.value for hold in HoldClass}
    assert isinstance(action, str)
    command = input.get("command", input.get("cmd")) if isinstance(input, dict) else None
    if tool in ("Bash", "shell", "exec") and not isinstance(command, str | list):
        assert set(classes) == {hold.value for hold in HoldClass}


def _dq(text: str) -> str:
    """`text` inside double quotes."""
    escaped = "".join("\\" + c if c in '"\\$`' else c for c in text)
    return f'"{escaped}"'


PUSHES = st.sampled_from(
    [
        "git push",
        "git push origin main",
        "git push -u origin HEAD",
        "git -C . push",
        "git -c http.extraHeader=x push",
        "git --no-pager push --tags",
        "/usr/bin/git push",
        "git $'push'",
        "git {push,status}",
        "GIT_TRACE=1 git push",
    ]
)
PREFIXES = st.sampled_from(
    [
        "env X=1 ",
        "env -u HOME ",
        "timeout 5 ",
        "timeout -s KILL 5 ",
        "nice -n 5 ",
        "nohup ",
        "command ",
        "stdbuf -oL ",
        "xargs ",
        "xargs --max-args 1 ",
        "taskset 1 ",
        "setsid ",
        "time ",
    ]
)
WRAPS: list[Callable[[str], str]] = [
    lambda c: f"bash -c {shlex.quote(c)}",
    lambda c: f"sh -c {_dq(c)}",
    lambda c: f"bash -lc {shlex.quote(c)}",
    lambda c: f"eval {shlex.quote(c)}",
    lambda c: f"true && {c}",
    lambda c: f"{c} && true",
    lambda c: f"false || {c}",
    lambda c: f"ls; {c}",
    lambda c: f"echo x | {c}",
    lambda c: f"{c} | cat",
    lambda c: f"({c})",
    lambda c: f"{{ {c}; }}",
    lambda c: f"echo $({c})",
    lambda c: f'echo "$({c})"',
    lambda c: f"if true; then {c}; fi",
    lambda c: f"cd src && {c}",
    lambda c: f"echo | xargs sh -c {shlex.quote(c)}",
    lambda c: f"timeout 60 bash -c {shlex.quote(c)}",
    lambda c: f"bash <<'EOF'\n{c}\nEOF",
    lambda c: f"echo {shlex.quote(c)} | bash",
    lambda c: f"bash <<< {shlex.quote(c)}",
    lambda c: f"trap {shlex.quote(c)} EXIT",
]


@given(PUSHES, st.lists(PREFIXES, max_size=3), st.lists(st.sampled_from(WRAPS), max_size=4))
def test_a_wrapped_push_is_held(
    push: str, prefixes: list[str], wraps: list[Callable[[str], str]]
) -> None:
    command = "".join(prefixes) + push
    for wrap in wraps:
        command = wrap(command)
    assert HoldClass.PUSH in shell_hold_classes(command, WORKSPACE), command


@given(PUSHES, st.lists(st.sampled_from(WRAPS), max_size=3))
def test_a_wrapped_push_is_held_in_a_codex_argument_list(
    push: str, wraps: list[Callable[[str], str]]
) -> None:
    command = push
    for wrap in wraps:
        command = wrap(command)
    assert HoldClass.PUSH in argv_hold_classes(["bash", "-lc", command], WORKSPACE), command


def test_the_workspace_need_not_exist(tmp_path: Path) -> None:
    missing = str(tmp_path / "gone")
    assert shell_hold_classes("echo x > out.txt && git push", missing) == {HoldClass.PUSH}
