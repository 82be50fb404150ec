"""Where the paths in a shell command lead, and how GNU-style options and operands split.

Everything here works on the command's text, except `realpath`, which asks the file system where
a path really leads, so that a symlink inside the workspace pointing out of it is seen as an escape.
A path this cannot resolve (a variable, `~`, a substitution) counts as outside the workspace.
"""

from __future__ import annotations

import os
import re
from enum import StrEnum

_PWD = re.compile(r"\$(?:PWD|\{PWD\})(?=/|$)")
_GLOB = re.compile(r"[*?[]")
_HARMLESS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})
_STREAMS = frozenset({"/dev/stdin", "/dev/stdout", "/dev/stderr"} | {f"/dev/fd/{n}" for n in "012"})
_SYSTEM = re.compile(r"/(?:$|(?:etc|usr|bin|sbin|lib[^/]*|boot|var|opt|root|sys|proc|dev)(?:/|$))")
UNRESOLVED = re.compile(r"[$`]|^~")
"""Text in a word that the shell replaces before the command runs: its value cannot be known."""


class Place(StrEnum):
    """Where a path leads: into the workspace, to its root (or all of it), or out of it."""

    INSIDE = "inside"
    ROOT = "root"
    OUTSIDE = "outside"


def realpath(path: str) -> str:
    """Resolve symlinks in `path`: the only place the shell rule touches the file system."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.normpath(path)


class Workspace:
    """The directory an agent works in, symlinks resolved, and the links a command makes."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.escapes: list[str] = []  # links the command itself makes that may lead out

    def place(self, path: str, cwd: str | None, *, follow: bool = True) -> Place:
        """Where `path`, run in `cwd` (None: unknown), leads; `follow` a final symlink or not."""
        if not path:
            return Place.INSIDE
        if (m := _PWD.match(path)) and cwd is not None:
            path = cwd + path[m.end() :]
        if UNRESOLVED.search(path):
            return Place.OUTSIDE
        if not os.path.isabs(path):
            if cwd is None:
                return Place.OUTSIDE
            path = os.path.join(cwd, path)
        if self._through_escape(path, follow):
            return Place.OUTSIDE
        parts = path.split("/")
        at = next((k for k, p in enumerate(parts) if _GLOB.search(p)), None)
        if at is not None and ".." in parts[at + 1 :]:  # `*/../..`: each match is one directory
            return self.place(
                "/".join(p if k < at or not _GLOB.search(p) else "_" for k, p in enumerate(parts)),
                cwd,
                follow=follow,
            )
        if at is not None:
            parent = realpath("/".join(parts[:at]) or "/")
            # `*` or `.*` right at the root means everything in the workspace; `*.log` does not.
            pattern = re.sub(r"\[[^]]*\]", "?", parts[at])  # `.[!.]*` matches `.git` too
            everything = re.fullmatch(r"[*?.]+", pattern) and not any(parts[at + 1 :])
            if parent == self.root and everything:
                return Place.ROOT
            return Place.INSIDE if self._holds(parent) else Place.OUTSIDE
        head, tail = os.path.split(path)
        follow = follow or tail in ("", ".", "..")
        real = realpath(path) if follow else os.path.join(realpath(head), tail)
        if real == self.root:
            return Place.ROOT
        return Place.INSIDE if self._holds(real) else Place.OUTSIDE

    def writes_outside(self, path: str, cwd: str | None, *, follow: bool = True) -> bool:
        """Whether writing `path` writes outside the workspace (`/dev/null` and the like do not)."""
        if path.startswith("/") and os.path.normpath(path) in _HARMLESS:
            return False
        return self.place(path, cwd, follow=follow) == Place.OUTSIDE

    def made_link(self, link: str, target: str, cwd: str | None) -> None:
        """Note a symlink the command makes: paths through it lead where it points."""
        if cwd is None or UNRESOLVED.search(link):
            return
        where = os.path.normpath(os.path.join(cwd, link))
        if self.place(target, os.path.dirname(where)) != Place.INSIDE:
            self.escapes.append(where)

    def _through_escape(self, path: str, follow: bool) -> bool:
        full = os.path.normpath(path)
        for link in self.escapes:
            if full.startswith(link + "/") or (follow and full == link):
                return True
        return False

    def _holds(self, path: str) -> bool:
        return path == self.root or path.startswith(self.root.rstrip("/") + "/")


def is_system(path: str, cwd: str | None) -> bool:
    """Whether `path`, or where it really leads, is in a system directory such as /etc or /usr."""
    full = os.path.normpath(os.path.join(cwd or "/", path))
    return any(_SYSTEM.match(p) and p not in _STREAMS for p in (full, realpath(full)))


def getopt(
    args: list[str], short_values: str = "", long_values: frozenset[str] = frozenset()
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """GNU-style options and operands: options anywhere before `--`, short ones combined.

    `short_values` are the letters whose option takes a value (attached, `-tDIR`, or the next
    argument); `long_values` the long options that do (`--opt=v` or `--opt v`; a unique
    abbreviation counts). Each option comes back as ("-t" or "--target-directory", its value).
    """
    opts: list[tuple[str, str | None]] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            operands += args[i:]
            break
        if a.startswith("--"):
            name, eq, value = a.partition("=")
            full = name if name in long_values else _abbreviation(name, long_values)
            if full is None:
                opts.append((name, value if eq else None))
                continue
            if not eq:
                value, i = (args[i] if i < len(args) else ""), i + 1
            opts.append((full, value))
        elif a.startswith("-") and a != "-":
            for k, letter in enumerate(a[1:], start=2):
                if letter in short_values:
                    value = a[k:] or (args[i] if i < len(args) else "")
                    i += not a[k:]
                    opts.append(("-" + letter, value))
                    break
                opts.append(("-" + letter, None))
        else:
            operands.append(a)
    return opts, operands


def _abbreviation(name: str, long_values: frozenset[str]) -> str | None:
    """The long option that `name` abbreviates (GNU accepts any unique prefix)."""
    if len(name) < 3:
        return None
    return next((o for o in sorted(long_values) if o.startswith(name)), None)


def option_values(opts: list[tuple[str, str | None]], *names: str) -> list[str]:
    """The values given to any of these options."""
    return [value or "" for name, value in opts if name in names]


def has_option(opts: list[tuple[str, str | None]], *names: str) -> bool:
    """Whether any of these options is given."""
    return any(name in names for name, _ in opts)
