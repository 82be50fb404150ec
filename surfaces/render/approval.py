"""An approval laid out for a terminal: the call's input shown exactly, field by field.

Discord's card is markdown under a message budget (`surfaces.discord.markdown.cards`); a terminal
shows the same structured payload as text: each argument under its own name, in the tool schema's
order, a command exactly as it will run, long values cut with the count of what is not shown.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from desk.holds.approvals import ApprovalState
from surfaces.render.blocks import (
    Block,
    Span,
    Tone,
    code,
    count,
    field,
    heading,
    item,
    joined,
    line,
    ours,
    text,
)
from surfaces.render.blocks import name as name_span
from surfaces.render.text import hidden_count

INLINE_MAX = 100
"""A string longer than this, or with a line break, is shown as a block below its name."""


def approval_card(state: ApprovalState, *, value_chars: int) -> list[Block]:
    """The blocks of one open approval; no value is cut shorter than `value_chars`."""
    request = state.request
    ident = state.approval_id
    blocks = [heading(name_span(ident))]
    if request.title:
        blocks.append(line(text(request.title, Tone.STRONG)))
    if request.classes:
        blocks.append(field("held because", *joined(name_span(c) for c in request.classes)))
    if request.action:
        blocks += _value(ours("action"), request.action, value_chars)
    blocks.append(field("tool", name_span(request.tool)))
    for key, value in _ordered(request.input, request.parameters):
        blocks += _value(name_span(key), value, value_chars)
    if not request.input:
        blocks.append(line(ours("(no arguments)", Tone.DIM)))
    if request.files:
        blocks.append(field("files"))
        blocks += [
            item(name_span(file.path), ours(f" ({_size(file.path)})")) for file in request.files
        ]
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
    blocks.append(line(ours("approve: "), name_span(f"codedesk approve {ident}")))
    blocks.append(line(ours("decline: "), name_span(f"codedesk decline {ident}")))
    return blocks


def _ordered(
    input: Mapping[str, Any], parameters: Mapping[str, Any] | None
) -> list[tuple[str, Any]]:
    """The arguments in the schema's order (the tool's own form), then any others."""
    props = parameters.get("properties") if isinstance(parameters, Mapping) else None
    declared = [key for key in props if key in input] if isinstance(props, Mapping) else []
    return [(key, input[key]) for key in declared] + [
        (key, value) for key, value in input.items() if key not in declared
    ]


def _value(label: Span, value: Any, limit: int) -> list[Block]:
    shown = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    kept, cut = (shown, 0) if len(shown) <= limit else (shown[:limit], len(shown) - limit)
    more = [line(ours(f"… {count(cut, 'more character')} not shown", Tone.DIM))] if cut else []
    if isinstance(value, str) and "\n" not in shown and len(kept) <= INLINE_MAX:
        return [field(label, text(kept)), *more]
    return [field(label), code(kept), *more]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def _size(path: str) -> str:
    """The file's size now: the person sees what would leave, never its bytes."""
    try:
        return count(os.stat(path).st_size, "byte")
    except OSError:
        return "missing"
