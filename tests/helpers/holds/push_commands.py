"""Hypothesis strategies for the property tests of the shell rule and the hook: any JSON value, and
a push hidden behind prefixes and wrappers."""

from __future__ import annotations

import shlex
from collections.abc import Callable

from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


def double_quoted(text: str) -> str:
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
    lambda c: f"sh -c {double_quoted(c)}",
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
