"""An approval laid out once, as blocks: the call's fields, how each value shows, where it is cut.

A card is what a person reads before an agent's call may run, so it shows what the call does,
field by field: the arguments in the tool schema's order (under the schema's title, or their
key as a name when the schema does not declare them), a command exactly as it will run, long
strings cut to a cap with the count of what is cut, and the files the call sends with their
size now. Each target renders the same blocks: the terminal (`approval_card` here) shows them
at its `value_chars` between the approval's id and the commands that answer it; Discord
(`surfaces.render.discord.cards`) renders them as markdown and fits them to an embed, with
a common cap it searches for and the last arguments left out when even that does not fit.

Where the targets differ is `Shapes`: Discord's card follows pi-roundtable 0.15's rules
(`SEED`: a lone `\r`, U+2028, U+2029 and U+0085 break a line as `\n` does, and a call whose
tool has no schema listing properties is one JSON object); the terminal (`TERMINAL`) lists the
arguments of such a call by name too, and puts only a `\n` in a block, spelling the other
breaks out on the line (`\r`), so no value hides a line there either.
The layout is pure apart from one ``os.stat`` per listed file.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from desk.holds.approvals import ApprovalState
from surfaces.render.blocks import (
    Block,
    Span,
    Tone,
    code,
    count,
    cut_mark,
    field,
    heading,
    item,
    joined,
    line,
    name,
    ours,
    text,
)
from surfaces.render.layout.approval_effect import approval_effect
from surfaces.render.layout.visible import LINE_BREAK, hidden_count, invisible, quote, to_json
from surfaces.render.layout.work_rounds.budget_layout import budget_summary

INLINE_MAX = 100
"""A string longer than this, or with a line break, is shown as a block below its label."""
TOOL_CHARS = 100
"""A tool's name in the question is cut to this (the agent's text, as long as it likes)."""
UNNAMED = ours("")
NO_ARGUMENTS = line(ours("(no arguments)", Tone.DIM))
FILES = field("files")
NEWLINE = re.compile("\n")


@dataclass(frozen=True)
class Shapes:
    """What a target decides of a call's layout."""

    breaks: re.Pattern[str]
    """What puts a string in a block below its label: a line break the target shows as one."""
    json_without_schema: bool
    """A call whose tool's schema lists no properties (or that has no schema) is one JSON
    object, each argument an entry of it, rather than arguments named as code."""


SEED = Shapes(breaks=LINE_BREAK, json_without_schema=True)
"""pi-roundtable 0.15's card rules (Discord's card)."""
TERMINAL = Shapes(breaks=NEWLINE, json_without_schema=False)
"""The terminal: a command as it will run, `\r` and U+2028 spelled out on its line."""


@dataclass(frozen=True)
class Part:
    """A part of the call a cap can shorten: the action, one argument, or an input that is
    not an object."""

    draw: Callable[[int | None], list[Block]]
    """The part's blocks with every cuttable string cut to a cap (None: shown whole)."""
    longest: int
    """The longest cuttable string: a cap at or above it changes nothing."""
    label: Span = UNNAMED
    """How the argument is named where it is left out."""
    entry: Callable[[int | None], str] | None = None
    """In a call laid out as one JSON object: the argument's entry in it at a cap."""


@dataclass(frozen=True)
class Call:
    """One tool call laid out: each target draws it at a cap, and a target short of room may
    leave out the last fields (and then the last files), saying how many."""

    question: Block
    """`Approve Bash?`"""
    fixed: tuple[Part, ...]
    """The action and an input that is not an object: cut, never left out."""
    fields: tuple[Part, ...]
    """The arguments: the schema's declared ones in its order, then the others in the input's."""
    no_arguments: bool
    files: tuple[Block, ...]
    """One item per file the call sends, under `FILES`."""
    json_object: bool = False
    """The fields are the entries of one JSON object (`Part.entry`): no schema lists them."""

    def blocks(self, cap: int | None) -> list[Block]:
        """The whole call, every cuttable string cut to `cap`."""
        out = [self.question]
        for part in self.fixed:
            out += part.draw(cap)
        if self.json_object:
            out.append(code(json_object(entry_at(part, cap) for part in self.fields), "json"))
        else:
            for part in self.fields:
                out += part.draw(cap)
        if self.no_arguments:
            out.append(NO_ARGUMENTS)
        if self.files:
            out += [FILES, *self.files]
        return out


def call_layout(
    tool: str,
    input: Mapping[str, Any],
    *,
    action: str = "",
    parameters: Mapping[str, Any] | None = None,
    files: Sequence[str | os.PathLike[str]] = (),
    shapes: Shapes = TERMINAL,
) -> Call:
    """Lay out one tool call for a person to approve.

    Args:
        tool: the tool's name, shown in the question.
        input: the call's whole input; only its own keys count.
        action: a short description of the call, shown above the arguments.
        parameters: the tool's parameter JSON Schema, if known: its properties give the
            arguments' order and labels.
        files: paths the call sends.
        shapes: what the target decides (`SEED` for Discord's card, `TERMINAL`).
    """
    kept, mark = _cut(tool, TOOL_CHARS)
    strong = Tone.STRONG
    question = line(ours("Approve ", strong), name(_shown(kept + mark), strong), ours("?", strong))
    fixed = [_value(ours("action"), action, shapes.breaks)] if action else []
    props = _properties(parameters)
    as_json = shapes.json_without_schema and isinstance(input, Mapping) and not props
    if not isinstance(input, Mapping):
        whole = input

        def draw(cap: int | None) -> list[Block]:
            return [code(to_json(_cut_tree(whole, cap), indent=2), lang="json")]

        fixed.append(Part(draw, _longest(input)))
    return Call(
        question=question,
        fixed=tuple(fixed),
        fields=tuple(_entries(input) if as_json else _fields(input, props, shapes.breaks)),
        no_arguments=isinstance(input, Mapping) and not input and not as_json,
        files=tuple(_file(path) for path in files),
        json_object=as_json,
    )


def json_object(entries: Iterable[str]) -> str:
    """A JSON object from its entries' text (`  "key": value`), two-space indented."""
    shown = list(entries)
    return "{\n" + ",\n".join(shown) + "\n}" if shown else "{}"


def entry_at(part: Part, cap: int | None) -> str:
    """A JSON object's entry at a cap (`Call.json_object`)."""
    assert part.entry is not None
    return part.entry(cap)


def approval_card(state: ApprovalState, *, value_chars: int) -> list[Block]:
    """The blocks of one open approval for a terminal: no value is cut shorter than
    `value_chars`, and nothing is left out."""
    request = state.request
    ident = state.approval_id
    blocks = [heading(name(ident))]
    if request.title:
        blocks.append(line(text(request.title, Tone.STRONG)))
    if request.classes:
        blocks.append(field("held because", *joined(name(c) for c in request.classes)))
    effect = approval_effect(request)
    if effect:
        blocks.append(field("if approved", text(effect, Tone.WARN)))
    if request.budget is not None:
        blocks += [line(text(said)) for said in budget_summary(request.budget)]
        blocks.append(line(ours("go on: "), name(f"codedesk approve {ident}")))
        blocks.append(line(ours("finish here: "), name(f"codedesk finish {request.budget.job}")))
        blocks.append(line(ours("stop: "), name(f"codedesk decline {ident}")))
        return blocks
    call = call_layout(
        request.tool,
        request.input,
        action=request.action,
        parameters=request.parameters,
        files=[file.path for file in request.files],
    )
    blocks += call.blocks(value_chars)
    hidden = sum(hidden_count(s) for s in _strings([request.title, request.action, request.input]))
    if hidden:
        blocks.append(
            line(
                ours(
                    f"note: {count(hidden, 'invisible or control character')} in this call "
                    "shown as \\u.... or \\t escapes",
                    Tone.WARN,
                )
            )
        )
    blocks.append(line(ours("approve: "), name(f"codedesk approve {ident}")))
    blocks.append(line(ours("decline: "), name(f"codedesk decline {ident}")))
    return blocks


def _properties(parameters: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """The properties a tool's schema lists (none: no schema, or one that lists none)."""
    props = parameters.get("properties") if isinstance(parameters, Mapping) else None
    return props if isinstance(props, Mapping) else {}


def _entries(input: Mapping[str, Any]) -> list[Part]:
    """The arguments as the entries of one JSON object, in the input's order, so the last can
    be left out as fields are."""
    parts = []
    for key, value in input.items():

        def entry(cap: int | None, key: Any = key, value: Any = value) -> str:
            return to_json({key: _cut_tree(value, cap)}, indent=2)[2:-2]

        shown = name(_shown(str(key)))
        parts.append(Part(lambda cap: [], _longest(value), shown, entry))
    return parts


def _fields(input: Any, props: Mapping[str, Any], breaks: re.Pattern[str]) -> list[Part]:
    """The arguments, declared ones in the schema's order under its titles, then the others
    named as code, so an undeclared argument cannot pass for a declared label."""
    if not isinstance(input, Mapping):
        return []
    parts = []
    for key, prop in props.items():
        # Membership in the mapping itself: own keys only, nothing looked up on an object.
        if key not in input:
            continue
        schema = prop if isinstance(prop, Mapping) else {}
        title = schema.get("title")
        label = title if isinstance(title, str) and not invisible(title) else str(key)
        value = input[key]
        fixed = isinstance(value, str) and _in_enum(value, schema)
        listed = name(_shown(label))
        parts.append(_value(text(_shown(label)), value, breaks, fixed=fixed, listed=listed))
    for key, value in input.items():
        if key not in props:
            shown = name(_shown(str(key)))
            parts.append(_value(shown, value, breaks, listed=shown))
    return parts


def _in_enum(value: str, schema: Mapping[str, Any]) -> bool:
    """Whether the schema fixes this string, so it is one of the tool's own words."""
    choices = schema.get("enum")
    if isinstance(choices, list) and any(isinstance(c, str) and c == value for c in choices):
        return True
    const = schema.get("const")
    return isinstance(const, str) and const == value


def _value(
    label: Span,
    value: Any,
    breaks: re.Pattern[str],
    *,
    fixed: bool = False,
    listed: Span = UNNAMED,
) -> Part:
    """A value after its label: on the label's line, or as a block on the lines below.

    The value's shape is decided once, on the whole value, so a cut never moves it between
    the line and a block, and a huge string is scanned once rather than for every cap.
    An enum value is the tool's own word: it is never cut.
    """
    shape = _shape(value, fixed, breaks)

    def draw(cap: int | None) -> list[Block]:
        cap = None if fixed else cap
        if shape == "block":
            return [field(label), code("".join(_cut(value, cap)), lang="")]
        if shape == "json":
            return [field(label), code(to_json(_cut_tree(value, cap)), lang="json")]
        return [field(label, *_inline(value, cap, shape))]

    return Part(draw, 0 if fixed else _longest(value), listed)


def _shape(value: Any, fixed: bool, breaks: re.Pattern[str]) -> str:
    if isinstance(value, str):
        if invisible(value):
            return "quoted"
        # A break the target does not show as one stays on the line, spelled out (`\r`).
        if breaks.search(value) or (len(value) > INLINE_MAX and not fixed):
            return "block"
        return "inline"
    if value is None or isinstance(value, bool | int | float):
        return "scalar"
    if isinstance(value, list | tuple) and _joinable(value):
        return "joined"
    return "json"


def _inline(value: Any, cap: int | None, shape: str) -> list[Span]:
    if shape == "scalar":
        return [text(to_json(value))]
    if shape == "joined":
        items = [_inline(v, cap, "inline" if isinstance(v, str) else "scalar") for v in value]
        return [span for spans in _separated(items) for span in spans]
    kept, mark = _cut(value, cap)
    shown = name(_shown(kept)) if shape == "quoted" else text(kept)
    return [shown, ours(mark, Tone.DIM)] if mark else [shown]


def _separated(items: list[list[Span]]) -> list[list[Span]]:
    out: list[list[Span]] = []
    for spans in items:
        if out:
            out.append([ours(", ")])
        out.append(spans)
    return out


def _joinable(items: Sequence[Any]) -> bool:
    """Whether ', ' can join the items without hiding, merging or splitting any of them."""
    if not items:
        return False
    for entry in items:
        if isinstance(entry, str):
            if invisible(entry) or ", " in entry or LINE_BREAK.search(entry):
                return False
        elif not (entry is None or isinstance(entry, bool | int | float)):
            return False
    return True


def _shown(s: str) -> str:
    """A name or label that shows nothing, written out quoted (`""`, `"\\u200b"`)."""
    return quote(s) if invisible(s) else s


def _cut(s: str, cap: int | None) -> tuple[str, str]:
    """The start of ``s`` kept under ``cap`` and the marker counting what was cut.

    A string is only cut when that makes it shorter, so the marker never costs more than it
    saves, and a lower cap never makes a string longer (Discord's fitting search relies on it).
    """
    if cap is None or len(s) <= cap:
        return s, ""
    cut = len(s) - cap
    mark = cut_mark(cut)
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


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def _file(path: str | os.PathLike[str]) -> Block:
    """A file the call sends, by path and size now: the person sees what leaves, not its bytes."""
    shown = name(_shown(os.fsdecode(path)))
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return item(shown, ours(" (missing)"))
    except OSError as error:
        reason = error.strerror or type(error).__name__
        return item(shown, ours(f" (cannot be checked: {reason})"))
    if stat.S_ISDIR(info.st_mode):
        return item(shown, ours(" (a directory)"))
    return item(shown, ours(f" ({count(info.st_size, 'byte')})"))
