"""What one command hands the next through a pipe: text, paths it lists, or the unknown."""

from __future__ import annotations

import os
import re

from desk.shell.words import decode_escapes
from desk.shell_rule.shell_paths import Place, Workspace

UNKNOWN = "\0unknown"
"""The output of a program this cannot know."""

INSIDE_PATHS = "\0paths"
"""The output of a program listing paths under the workspace (for `| xargs` to use)."""

_LISTERS = re.compile(r"-[a-zA-Z]*[lL][a-zA-Z]*|--files(-with(out)?-matches?)?|--name-only")


def lists_inside(ws: Workspace, argv: list[str], cwd: str | None) -> bool:
    """Whether a command prints only paths under the workspace (for `| xargs` to use)."""
    name, args = (os.path.basename(argv[0]), argv[1:]) if argv else ("", [])
    operands = [a for a in args if not a.startswith("-")]
    if name == "find":
        ends = next((k for k, a in enumerate(args) if a.startswith(("-", "(", "!"))), len(args))
        operands = args[:ends] or ["."]
        follows = {"-L", "-H", "-follow"} & set(args)
        listing = not follows and not {"-exec", "-execdir", "-printf", "-fprint"} & set(args)
    elif name in ("grep", "egrep", "rg", "git"):
        listing = any(_LISTERS.fullmatch(a) for a in args)
        if name == "git":
            listing = operands[:1] == ["ls-files"] or (
                operands[:1] in (["diff"], ["grep"]) and listing
            )
            operands = operands[1:]
    else:
        listing = name in ("ls", "fd", "fdfind")
    return listing and all(ws.place(a, cwd) != Place.OUTSIDE for a in operands)


def output(argv: list[str], stdin: str | None) -> str:
    """What a command writes to a pipe: `echo`'s and `printf`'s words, `cat`'s input.

    Escapes may or may not be decoded (`echo -e`, a `printf` format): both readings are kept.
    """
    name = os.path.basename(argv[0]) if argv else ""
    if name == "echo":
        words = " ".join(a for a in argv[1:] if a not in ("-n", "-e", "-E"))
        return f"{words}\n{decode_escapes(words)}"
    if name == "printf":  # the format and each argument on a line of their own
        words = "\n".join(argv[1:])
        return f"{words}\n{decode_escapes(words)}"
    if name == "cat" and all(a == "-" for a in argv[1:]) and stdin is not None:
        return stdin
    return UNKNOWN
