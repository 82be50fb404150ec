"""Approval cards: one tool call as markdown built from its schema and cut to a budget.

A card is what a person reads before an agent's call may run, so it shows what the call does
and nothing a model wrote can format it, hide part of it, link anywhere or mention anyone.
Each surface renders the same structured payload under its own budget (Discord's message
limit, a terminal). The renderer is pure apart from one ``os.stat`` per listed file.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from surfaces.discord.markdown.card_text import (
    LINE_BREAK,
    code,
    escape,
    fenced,
    invisible,
    quote,
    span,
    to_json,
)

INLINE_MAX = 100
"""A string longer than this goes in a fenced block, where long text wraps and reads well."""
TOOL_CHARS = 100
"""A tool's name in the title is cut to this (a name is the agent's text, as long as it likes)."""


@dataclass(frozen=True)
class CardLimits:
    """The budget a surface gives a card, in characters (code points).

    Attributes:
        total_chars: the whole card's length; an input that fits is shown whole.
        value_chars: no string value is cut shorter than this, so each keeps a readable start.
    """

    total_chars: int = 1500
    value_chars: int = 200

    def __post_init__(self) -> None:
        if self.total_chars < 1 or self.value_chars < 0:
            raise ValueError(
                f"Card limits {self.total_chars}/{self.value_chars} are not usable: "
                "total_chars must be at least 1 and value_chars at least 0."
            )


@dataclass
class _Piece:
    """A part of the card a cap can shorten: the action, one argument or one JSON entry.

    Each part is drawn at most once per cap, so fitting a card with a large uncuttable value
    (a long array of numbers) does not re-render it for every trial.
    """

    draw: Callable[[int | None], str]
    longest: int  # the longest cuttable string: a cap at or above it changes nothing
    listed: str = ""  # how the 'not shown' notice names it
    drawn: dict[int | None, str] = field(default_factory=dict)

    def at(self, cap: int | None) -> str:
        key = None if cap is None or cap >= self.longest else cap
        if key not in self.drawn:
            self.drawn[key] = self.draw(key)
        return self.drawn[key]


@dataclass
class _Layout:
    """The card's parts in order; ``segments`` joins them for a cap and a number dropped."""

    title: str
    action: _Piece | None
    fields: list[_Piece]
    json_object: bool  # the fields are the entries of one JSON object block
    whole: _Piece | None  # an input that is not an object: one block, never dropped
    files: list[str]

    def segments(self, cap: int | None, drop: int, drop_files: int, notice: str) -> list[str]:
        out = [self.title]
        for piece in (self.action, self.whole):
            if piece is not None:
                out += ["\n", piece.at(cap)]
        shown = self.fields[: len(self.fields) - drop]
        if self.json_object and (shown or not drop):
            out.append("\n```json\n{" if shown else "\n```json\n{}")
            for i, piece in enumerate(shown):
                out += [",\n" if i else "\n", piece.at(cap)]
            out.append("\n}\n```" if shown else "\n```")
        elif not self.json_object and self.whole is None:
            for piece in shown:
                out += ["\n", piece.at(cap)]
            if not self.fields:
                out.append("\n(no arguments)")
        if notice:
            out += ["\n", notice]
        if self.files:
            out.append("\n**Files**:")
            for line in self.files[: len(self.files) - drop_files]:
                out += ["\n", line]
            if drop_files:
                out.append(f"\n… {_count(drop_files, 'more file')} not shown")
        return out

    def length(self, cap: int | None, drop: int, drop_files: int = 0, notice: str = "") -> int:
        return sum(map(len, self.segments(cap, drop, drop_files, notice)))


def approval_card(
    tool: str,
    input: Mapping[str, Any],
    *,
    action: str = "",
    parameters: Mapping[str, Any] | None = None,
    files: Sequence[str | os.PathLike[str]] = (),
    limits: CardLimits = CardLimits(),
) -> str:
    """Render one tool call for a person to approve, as markdown within ``limits``.

    With a schema that lists properties the input is a field list in the schema's order, so
    it reads like the tool's own form; otherwise it is one JSON block. Over budget, string
    values are cut (longest first, never below ``limits.value_chars``), then the last fields
    are dropped and named. Files are listed with their size now, never their bytes.

    Args:
        tool: the tool's name, shown in the title line.
        input: the call's whole input; only its own keys count.
        action: a short description of the call, shown above the fields.
        parameters: the tool's parameter JSON Schema, if known.
        files: paths the call sends.
        limits: the surface's budget.
    """
    if isinstance(files, str | bytes):
        files = [files]
    props = parameters.get("properties") if isinstance(parameters, Mapping) else None
    if not (isinstance(input, Mapping) and isinstance(props, Mapping) and props):
        props = None

    def whole(cap: int | None) -> str:
        return fenced(code(to_json(_cut_tree(input, cap), indent=2)), "json")

    layout = _Layout(
        title=f"**Approve {span(''.join(_cut(tool, TOOL_CHARS)))}?**",
        action=_value_piece("", action, line_start=True) if action else None,
        fields=_fields(input, props),
        json_object=props is None and isinstance(input, Mapping),
        whole=None if isinstance(input, Mapping) else _Piece(whole, _longest(input)),
        files=[_file_line(path) for path in files],
    )
    return _fit(layout, limits)


def _fields(input: Any, props: Mapping[str, Any] | None) -> list[_Piece]:
    """The arguments as field lines, declared ones in the schema's order, then the others;
    or, without a schema, as the entries of one JSON object, so the last can be dropped."""
    if not isinstance(input, Mapping):
        return []
    if props is None:
        return [_Piece(partial(_entry, k, v), _longest(v), span(str(k))) for k, v in input.items()]
    fields = []
    for name, prop in props.items():
        # Membership in the mapping itself: own keys only, nothing looked up on an object.
        if name not in input:
            continue
        schema = prop if isinstance(prop, Mapping) else {}
        title = schema.get("title")
        label = title if isinstance(title, str) and not invisible(title) else str(name)
        head = "**" + escape(quote(label) if invisible(label) else label) + "**"
        value = input[name]
        fixed = isinstance(value, str) and _in_enum(value, schema)
        fields.append(_value_piece(head, value, fixed=fixed, listed=span(label)))
    for key, value in input.items():
        if key not in props:
            # Code format, so an undeclared argument cannot pass for a declared label.
            fields.append(_value_piece(span(str(key)), value, listed=span(str(key))))
    return fields


def _entry(key: Any, value: Any, cap: int | None) -> str:
    text = to_json({key: _cut_tree(value, cap)}, indent=2)
    return code(text[2:-2])  # the entry without the object's braces


def _in_enum(value: str, schema: Mapping[str, Any]) -> bool:
    """Whether the schema fixes this string, so it is one of the tool's own words."""
    choices = schema.get("enum")
    if isinstance(choices, list) and any(isinstance(c, str) and c == value for c in choices):
        return True
    const = schema.get("const")
    return isinstance(const, str) and const == value


def _value_piece(
    head: str, value: Any, *, fixed: bool = False, line_start: bool = False, listed: str = ""
) -> _Piece:
    """A value after its head: on the line, or in a fenced block on the lines below.

    The value's shape is decided once, on the whole value, so a cut never moves it between
    the line and a block, and a huge string is scanned once rather than on every trial cap.
    An enum value is the tool's own word: it is never cut.
    """
    shape = _shape(value, fixed)

    def line(cap: int | None) -> str:
        text = _draw(value, None if fixed else cap, shape, line_start)
        if not head:
            return text
        return f"{head}:\n{text}" if shape in ("block", "json") else f"{head}: {text}"

    return _Piece(line, 0 if fixed else _longest(value), listed)


def _shape(value: Any, fixed: bool) -> str:
    if isinstance(value, str):
        if invisible(value):
            return "quoted"
        if LINE_BREAK.search(value) or (len(value) > INLINE_MAX and not fixed):
            return "block"
        return "inline"
    if value is None or isinstance(value, bool | int | float):
        return "scalar"
    if isinstance(value, list | tuple) and _joinable(value):
        return "joined"
    return "json"


def _draw(value: Any, cap: int | None, shape: str, line_start: bool) -> str:
    if shape == "scalar":
        return to_json(value)
    if shape == "joined":
        kinds = ["inline" if isinstance(item, str) else "scalar" for item in value]
        return ", ".join(_draw(item, cap, kinds[i], False) for i, item in enumerate(value))
    if shape == "json":
        return fenced(code(to_json(_cut_tree(value, cap))), "json")
    kept, mark = _cut(value, cap)
    if shape == "quoted":
        return span(kept) + mark
    if shape == "block":
        return fenced(code(kept + mark))
    return escape(kept, line_start=line_start) + mark


def _joinable(items: Sequence[Any]) -> bool:
    """Whether ', ' can join the items without hiding, merging or splitting any of them."""
    if not items:
        return False
    for item in items:
        if isinstance(item, str):
            if invisible(item) or ", " in item or LINE_BREAK.search(item):
                return False
        elif not (item is None or isinstance(item, bool | int | float)):
            return False
    return True


def _cut(s: str, cap: int | None) -> tuple[str, str]:
    """The start of ``s`` kept under ``cap`` and the marker naming how much was cut.

    A string is only cut when that makes it shorter, so the marker never costs more than it
    saves, and a lower cap never makes a string longer (the fitting search relies on it).
    """
    if cap is None or len(s) <= cap:
        return s, ""
    cut = len(s) - cap
    mark = f"… [{cut} chars]"
    if cut <= len(mark):
        return s, ""
    return s[:cap], mark


def _cut_tree(value: Any, cap: int | None) -> Any:
    if isinstance(value, str):
        return "".join(_cut(value, cap))
    if isinstance(value, Mapping):
        return {k: _cut_tree(v, cap) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_cut_tree(v, cap) for v in value]
    return value


def _longest(value: Any) -> int:
    """The longest string anywhere in a value: the largest cap that can matter."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, Mapping):
        return max((_longest(v) for v in value.values()), default=0)
    if isinstance(value, list | tuple):
        return max((_longest(v) for v in value), default=0)
    return 0


def _fit(layout: _Layout, limits: CardLimits) -> str:
    """The card with the most shown that fits: cut strings, then drop fields, then files.

    Strings are cut to a common cap (water-filling): only strings longer than the cap are
    cut, so the longest are cut first, and the largest cap that fits keeps the most text.
    The dropped fields are named first; after that the cap is searched again, as dropping
    them may have made room for the others.
    """
    budget, floor = limits.total_chars, limits.value_chars
    pieces = [p for p in (layout.action, layout.whole, *layout.fields) if p is not None]
    longest = max((p.longest for p in pieces), default=0)
    # Normalising CRLF can at most halve a string, so a longer one can never fit whole.
    if longest <= 2 * budget and layout.length(None, 0) <= budget:
        return "".join(layout.segments(None, 0, 0, ""))
    n, n_files = len(layout.fields), len(layout.files)
    kept = [0]  # kept[i]: the first i fields' length at the floor, a lower bound
    for piece in layout.fields:
        kept.append(kept[-1] + len(piece.at(floor)))
    plans = [(d, 0) for d in range(n + 1)] + [(n, f) for f in range(1, n_files + 1)]
    for drop, drop_files in plans:
        if kept[n - drop] > budget:
            continue
        rest = layout.length(floor, drop, drop_files)
        notice = _notice(layout.fields[n - drop :], budget - rest - 1) if drop else ""
        if notice is None or rest + len(notice) + bool(notice) > budget:
            continue
        low, high = floor, max(floor, min(longest, 2 * budget))
        while low < high:
            mid = (low + high + 1) // 2
            if layout.length(mid, drop, drop_files, notice) <= budget:
                low = mid
            else:
                high = mid - 1
        return "".join(layout.segments(low, drop, drop_files, notice))
    # Best effort: the title and what cannot be cut or dropped exceed the budget alone.
    notice = f"… {_count(n, 'more field')} not shown" if n else ""
    return "".join(layout.segments(floor, n, n_files, notice))


def _notice(dropped: list[_Piece], room: int) -> str | None:
    """'… N more fields not shown: `a`, `b`', naming as many as fit in ``room``, or None."""
    text = f"… {_count(len(dropped), 'more field')} not shown"
    full = f"{text}: {', '.join(p.listed for p in dropped)}"
    if len(full) <= room or len(text) > room:
        return full if len(full) <= room else None
    # Too many to name in the budget: name the first ones, and say there are more.
    names: list[str] = []
    size = len(text) + len(": …")
    for piece in dropped:
        size += len(piece.listed) + 2
        if size > room:
            break
        names.append(piece.listed)
    return f"{text}: {', '.join([*names, '…'])}" if names else text


def _file_line(path: str | os.PathLike[str]) -> str:
    """A file the call sends, by path and size now: the person sees what leaves, not its bytes."""
    shown = f"- {span(os.fsdecode(path))}"
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return f"{shown} (missing)"
    except OSError as error:
        return f"{shown} (cannot be checked: {error.strerror or type(error).__name__})"
    if stat.S_ISDIR(info.st_mode):
        return f"{shown} (a directory)"
    return f"{shown} ({_count(info.st_size, 'byte')})"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
