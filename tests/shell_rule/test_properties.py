"""Property tests of the shell rule: any text is read without a crash, and a push is always held."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from desk.shell.lex import lex, simple_commands
from desk.shell_rule import rule as policy
from desk.shell_rule.rule import HoldClass, argv_hold_classes, shell_hold_classes
from desk.shell_rule.shell_calls import call_hold_classes
from desk.shell_rule.shell_paths import Workspace
from tests.helpers.holds.push_commands import PREFIXES, PUSHES, WRAPS, json_values

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
    scan = policy.ShellScan(Workspace(WORKSPACE))
    try:
        scan.text(text, WORKSPACE, 0)  # the fallback that hides a crash is not in this path
    except policy.TooDeepError:
        pass
    assert shell_hold_classes(text, WORKSPACE) <= frozenset(HoldClass)


@given(st.lists(st.one_of(st.text(), st.integers(), st.none()), max_size=8))
def test_any_argument_list_is_read_without_a_crash(argv: list[object]) -> None:
    held = argv_hold_classes(argv, WORKSPACE)
    if not all(isinstance(word, str) for word in argv) or not argv:
        assert held == frozenset(HoldClass)


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
