"""Blocks for a terminal (rich, styled) and as plain text (piped): exact text, hidden made visible.

Text from a job or a model is shown exactly as it is, with no markup and no escaping, except
for characters that show nothing or change what their neighbours show (controls such as ESC
or a carriage return, zero-width and bidi characters): those are spelled out as `\\u200b`,
`\\u001b`, `\\t`, so the text a person reads is the text that will run.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text

from surfaces.render.blocks import Block, Kind, Role, Span, Tone
from surfaces.render.layout.visible import HIDDEN, HIDDEN_IN_CODE, escape_char

INDENT = {Role.HEADING: 0, Role.LINE: 2, Role.FIELD: 2, Role.ITEM: 4, Role.CODE: 4}
STYLE = {
    Tone.PLAIN: "",
    Tone.STRONG: "bold",
    Tone.GOOD: "green",
    Tone.WARN: "yellow",
    Tone.BAD: "red",
    Tone.DIM: "dim",
}
MADE_VISIBLE = "reverse"
"""How a styled terminal marks a spelled-out character, so it cannot pass for typed text."""

Fragment = tuple[str, str]  # text, rich style


def visible(value: str, *, keep_line_breaks: bool = False) -> str:
    """`value` with every hidden character spelled out (JSON's spelling: `\\u200b`, `\\t`)."""
    return "".join(text for text, _ in _visible(value, "", keep_line_breaks))


def terminal(blocks: Iterable[Block]) -> list[Text]:
    """Styled lines for a terminal."""
    lines = []
    for fragments in _lines(blocks):
        line = Text()
        for chunk, style in fragments:
            line.append(chunk, style=style or None)
        lines.append(line)
    return lines


def plain(blocks: Iterable[Block]) -> list[str]:
    """The same lines without styles: for a pipe, a file or a log."""
    return ["".join(chunk for chunk, _ in fragments) for fragments in _lines(blocks)]


def _lines(blocks: Iterable[Block]) -> list[list[Fragment]]:
    lines: list[list[Fragment]] = []
    for block in blocks:
        pad: Fragment = (" " * INDENT[block.role], "")
        if block.role == Role.CODE:
            for row in block.code.split("\n"):
                lines.append([pad, *_visible(row, "", keep_line_breaks=True)])
            continue
        base = "bold" if block.role == Role.HEADING else ""
        fragments = [pad]
        if block.role == Role.FIELD:
            fragments += _spans(block.label, base)
            fragments.append((":" + (" " if block.parts else ""), base))
        fragments += _spans(block.parts, base)
        lines.append(fragments)
    return lines


def _spans(spans: Iterable[Span], base: str) -> list[Fragment]:
    fragments: list[Fragment] = []
    for span in spans:
        style = " ".join(part for part in (base, STYLE[span.tone]) if part)
        if span.kind == Kind.OURS:
            fragments.append((span.text, style))
        else:
            fragments += _visible(span.text, style, keep_line_breaks=False)
    return fragments


def _visible(value: str, style: str, keep_line_breaks: bool) -> list[Fragment]:
    pattern = HIDDEN_IN_CODE if keep_line_breaks else HIDDEN
    fragments: list[Fragment] = []
    last = 0
    for found in pattern.finditer(value):
        if found.start() > last:
            fragments.append((value[last : found.start()], style))
        fragments.append((escape_char(found.group()), f"{style} {MADE_VISIBLE}".strip()))
        last = found.end()
    if last < len(value) or not fragments:
        fragments.append((value[last:], style))
    return fragments
