"""Where the paths in a shell command lead, and which paths the common file tools write.

Everything here works on the command's text, except `realpath`, which asks the file system where
a path really leads, so that a symlink inside the workspace pointing out of it is seen as an escape.
A path this cannot resolve (a variable, `~`, a substitution) counts as outside the workspace.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from enum import StrEnum

_PWD = re.compile(r"\$(?:PWD|\{PWD\})(?=/|$)")
_GLOB = re.compile(r"[*?[]")
_HARMLESS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})
_STREAMS = frozenset({"/dev/stdin", "/dev/stdout", "/dev/stderr"} | {f"/dev/fd/{n}" for n in "012"})
_SYSTEM = re.compile(r"/(?:$|(?:etc|usr|bin|sbin|lib[^/]*|boot|var|opt|root|sys|proc|dev)(?:/|$))")
_WRITERS: dict[str, frozenset[str]] = {  # every operand is written; options that take a value
    "touch": frozenset({"-d", "-r", "-t", "--date", "--reference"}),
    "mkdir": frozenset({"-m", "--mode"}),
    "truncate": frozenset({"-s", "-r", "--size", "--reference"}),
    "tee": frozenset(),
}
_COPY_VALUES = frozenset(
    "-t -S -m -o -g --target-directory --suffix --mode --owner --group".split()
)


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


@dataclass(frozen=True)
class Workspace:
    """The directory an agent works in, symlinks resolved."""

    root: str

    def place(self, path: str, cwd: str | None, *, follow: bool = True) -> Place:
        """Where `path`, run in `cwd` (None: unknown), leads; `follow` a final symlink or not."""
        if not path:
            return Place.INSIDE
        if (m := _PWD.match(path)) and cwd is not None:
            path = cwd + path[m.end() :]
        if "$" in path or "`" in path or path.startswith("~"):
            return Place.OUTSIDE
        if not os.path.isabs(path):
            if cwd is None:
                return Place.OUTSIDE
            path = os.path.join(cwd, path)
        parts = path.split("/")
        at = next((k for k, p in enumerate(parts) if _GLOB.search(p)), None)
        if at is not None:
            parent = realpath("/".join(parts[:at]) or "/")
            # `*` or `.*` right at the root means everything in the workspace; `*.log` does not.
            everything = re.fullmatch(r"[*?.]+", parts[at]) and not any(parts[at + 1 :])
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

    def _holds(self, path: str) -> bool:
        return path == self.root or path.startswith(self.root.rstrip("/") + "/")


def is_system(path: str, cwd: str | None) -> bool:
    """Whether `path`, or where it really leads, is in a system directory such as /etc or /usr."""
    full = os.path.normpath(os.path.join(cwd or "/", path))
    return any(_SYSTEM.match(p) and p not in _STREAMS for p in (full, realpath(full)))


def written_paths(name: str, args: list[str]) -> list[tuple[str, bool]]:
    """The paths a file tool writes, each with whether a final symlink in it is followed.

    Covers cp, mv, install, ln, touch, mkdir, truncate, tee, dd and `sed -i`; any other command
    writes none that this knows of.
    """
    if name in ("cp", "mv", "install", "ln"):
        return _copy_writes(name, args)
    if name in _WRITERS:
        return [(path, True) for path in split_options(args, _WRITERS[name])[1]]
    if name == "dd":
        return [(a[3:], True) for a in args if a.startswith("of=")]
    if name == "sed":
        return [(path, True) for path in _sed_in_place_files(args)]
    return []


def split_options(args: list[str], values: frozenset[str]) -> tuple[list[str], list[str]]:
    """Options and operands of GNU-style arguments (options anywhere before `--`).

    `values` are the options whose value is the next argument; that value is skipped.
    """
    opts: list[str] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands += args[i + 1 :]
            break
        if a.startswith("-") and a != "-":
            opts.append(a)
            i += a in values
        else:
            operands.append(a)
        i += 1
    return opts, operands


def short_flags(opts: list[str]) -> str:
    """The letters of the short options, with an attached `-e` value cut off."""
    return "".join(o[1:].partition("e")[0] for o in opts if not o.startswith("--"))


def _copy_writes(name: str, args: list[str]) -> list[tuple[str, bool]]:
    """cp, mv, install and ln write their destination; mv also removes its sources."""
    target = None
    for k, a in enumerate(args):
        if a in ("-t", "--target-directory") and k + 1 < len(args):
            target = args[k + 1]
        elif a.startswith("--target-directory=") or (a.startswith("-t") and len(a) > 2):
            target = a.partition("=")[2] if a.startswith("--") else a[2:]
    opts, operands = split_options(args, _COPY_VALUES)
    if name == "install" and ("--directory" in opts or "d" in short_flags(opts)):
        dests = operands
    else:
        dests = [target] if target is not None else operands[-1:] if len(operands) > 1 else []
    writes = [(dest, True) for dest in dests]
    if name == "mv":  # moving a symlink moves the link, not what it points to
        writes += [(src, False) for src in (operands if target is not None else operands[:-1])]
    return writes


def _sed_in_place_files(args: list[str]) -> list[str]:
    """The files `sed` edits in place (none without -i)."""
    in_place = has_script = False
    files: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            files += args[i + 1 + (not has_script) :]
            break
        if a.startswith("--"):
            in_place |= a.startswith("--in-place")
            has_script |= a.startswith(("--expression", "--file"))
            i += a in ("--expression", "--file", "--line-length")
        elif a.startswith("-") and a != "-":
            for k, ch in enumerate(a[1:], start=2):
                if ch == "i":  # whatever follows -i is its backup suffix
                    in_place = True
                    break
                if ch in "efl":
                    has_script |= ch != "l"
                    i += k == len(a)  # the value is the next argument
                    break
        elif has_script:
            files.append(a)
        else:
            has_script = True
        i += 1
    return files if in_place else []
