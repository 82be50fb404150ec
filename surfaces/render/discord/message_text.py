"""Text for Discord: model-written text made harmless, and long text split under the limit.

The escaping is the cards' (`surfaces.render.discord.card_text`), so a card, a thread message
and a reply follow one rule: nothing a model wrote can mention anyone, mask a link, hide or reorder
text. Thread text keeps its markdown (headings, lists, code), which is what makes it readable; only
the parts that can link, mention or hide are neutralised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from surfaces.render.discord import card_text
from surfaces.render.discord.card_text import UNSAFE_BLOCK, UNSAFE_INLINE, ZWSP
from surfaces.render.layout.visible import spell_out

MESSAGE_CHARS = 2000
"""Discord's limit on a message's content."""

_FENCE = re.compile(r"^ {0,3}(?P<mark>`{3,}|~{3,})(?P<info>[^`]*)$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# A code span as the renderers write one: a backtick run no escape or backtick precedes, and
# the same run closing it.
_LINE_SPAN = re.compile(r"(?<![`\\])(?P<run>`+)(?!`).+?(?<!`)(?P=run)(?!`)")
# `<@id>`, `<#id>`, `<@&id>`, `<t:…>`, `</cmd:id>`, `<https://…>`: an escaped '<' shows as is.
# `[text](url)`: an escaped '[' cannot mask a link. '@' and '://' as in the card renderer.
_PROSE_UNSAFE = re.compile(r"([<\[\]\\])")
_LINKY = re.compile(r"(?<=@)|(?<=:)(?=//)|(?i:(?<=www)(?=\.))")


def plain(text: str) -> str:
    """One line of escaped text: formats nothing, links nowhere, mentions no one."""
    return card_text.escape(text)


def code(text: str) -> str:
    """Inline code for a name, a path or a branch: shown literally."""
    return card_text.span(text)


def line(text: str) -> str:
    """Text for a place that renders no markdown (an embed footer, an author name)."""
    return spell_out(" ".join(text.split()), UNSAFE_INLINE).replace("@", "@" + ZWSP)


def cut(text: str, limit: int) -> str:
    """`text` within `limit` characters, marked with an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def sanitize(text: str) -> str:
    """Markdown that keeps its shape but cannot mention, link, mask a link or hide text.

    Outside code, `<`, `[`, `]` and `\\` are escaped and '@'/'://' get a zero-width space;
    inside fences and code spans only hidden characters are spelled out, since nothing
    renders there. A fence left open is closed, so every block ends where it should.
    """
    out: list[str] = []
    fence: str | None = None
    for raw in spell_out(text.replace("\r\n", "\n"), UNSAFE_BLOCK).split("\n"):
        if fence is not None:
            out.append(raw)
            if _closes(raw, fence):
                fence = None
            continue
        opened = _FENCE.match(raw)
        if opened:
            fence = opened["mark"]
            out.append(raw)
            continue
        out.append(_prose(raw))
    if fence is not None:
        out.append(fence)
    return "\n".join(out)


def _prose(text: str) -> str:
    parts: list[str] = []
    last = 0
    for span in _CODE_SPAN.finditer(text):
        parts.append(_neutral(text[last : span.start()]))
        parts.append(span.group().replace("@", "@" + ZWSP))
        last = span.end()
    parts.append(_neutral(text[last:]))
    return "".join(parts)


def _neutral(text: str) -> str:
    return _LINKY.sub(ZWSP, _PROSE_UNSAFE.sub(r"\\\1", text))


def _closes(text: str, fence: str) -> bool:
    stripped = text.strip()
    return (
        len(stripped) >= len(fence)
        and set(stripped) == {fence[0]}
        and len(text) - len(text.lstrip(" ")) <= 3
    )


@dataclass
class _Block:
    lines: list[str]
    fence: str = ""  # the opening fence line of a code block; empty for prose
    close: str = ""

    def text(self) -> str:
        if not self.fence:
            return "\n".join(self.lines)
        return "\n".join([self.fence, *self.lines, self.close])


def split_message(text: str, limit: int = MESSAGE_CHARS) -> list[str]:
    """Split text into messages of at most `limit` characters with code blocks kept whole.

    Lines are packed greedily; a code block moves whole to the next message when it does not
    fit, and only a block longer than a message is cut, each piece closed and reopened with
    the same fence and language, so every message renders on its own. A fence left open is
    closed. Empty messages are never produced.
    """
    if limit < 20:
        raise ValueError("A message limit under 20 characters leaves no room for a fence.")
    chunks: list[str] = []
    current = ""

    def add(piece: str) -> None:
        nonlocal current
        joined = f"{current}\n{piece}" if current else piece
        if len(joined) <= limit:
            current = joined
            return
        flush()
        current = piece

    def flush() -> None:
        nonlocal current
        if current.strip():
            chunks.append(current.rstrip("\n"))
        current = ""

    for block in _blocks(text):
        whole = block.text()
        if len(whole) <= limit:
            add(whole)
        elif block.fence:
            for piece in _split_code(block, limit):
                add(piece)
        else:
            for raw in block.lines:
                for piece in _split_line(raw, limit):
                    add(piece)
    flush()
    return chunks


def _blocks(text: str) -> list[_Block]:
    blocks: list[_Block] = []
    prose: list[str] = []
    code_block: _Block | None = None
    mark = ""
    for raw in text.replace("\r\n", "\n").split("\n"):
        if code_block is not None:
            if _closes(raw, mark):
                code_block.close = raw
                blocks.append(code_block)
                code_block = None
            else:
                code_block.lines.append(raw)
            continue
        opened = _FENCE.match(raw)
        if opened:
            if prose:
                blocks.append(_Block(prose))
                prose = []
            mark = opened["mark"]
            code_block = _Block([], fence=raw)
            continue
        prose.append(raw)
    if code_block is not None:
        code_block.close = mark
        blocks.append(code_block)
    if prose:
        blocks.append(_Block(prose))
    return blocks


def _split_code(block: _Block, limit: int) -> list[str]:
    """A code block longer than a message, as blocks that each fit, with the same fence."""
    overhead = len(block.fence) + len(block.close) + 2
    room = limit - overhead
    if room < 1:  # a fence line longer than a message: keep only its marker
        mark = _FENCE.match(block.fence)
        block = _Block(block.lines, fence=mark["mark"] if mark else "```", close=block.close)
        room = limit - len(block.fence) - len(block.close) - 2
    pieces: list[str] = []
    body: list[str] = []
    size = 0
    for raw in block.lines:
        for part in _hard_split(raw, room):
            extra = len(part) + (1 if body else 0)
            if body and size + extra > room:
                pieces.append(_Block(body, block.fence, block.close).text())
                body, size = [], 0
                extra = len(part)
            body.append(part)
            size += extra
    if body:
        pieces.append(_Block(body, block.fence, block.close).text())
    return pieces


def _split_line(text: str, limit: int) -> list[str]:
    """A prose line longer than a message, cut at spaces where it can be, never in a code span.

    A cut inside a code span would turn the rest of the line inside out: what the span showed
    literally (a `[text](url)`, a `<#id>`) would render as markdown in the next message. A
    span longer than a message is cut into spans of its own, each closed and reopened.
    """
    pieces: list[str] = []
    current, prose_from = "", 0  # where the trailing prose of `current` starts
    for segment, delimiter in _segments(text):
        if delimiter:
            if len(current) + len(segment) > limit and current:
                pieces.append(current)
                current = ""
            if len(segment) > limit:
                *whole, segment = _split_span(segment, delimiter, limit)
                pieces += whole
            current += segment
            prose_from = len(current)
            continue
        current += segment
        while len(current) > limit:
            at = current.rfind(" ", prose_from, limit + 1)
            if at <= prose_from:
                at = prose_from if prose_from else limit
            run = len(current[:at]) - len(current[:at].rstrip("\\"))
            if run % 2 and at > prose_from + 1:
                at -= 1  # never part an escape from the character it escapes
            pieces.append(current[:at])
            current, prose_from = current[at:].lstrip(" "), 0
    pieces.append(current)
    return [piece for piece in pieces if piece] or [""]


def _segments(text: str) -> list[tuple[str, str]]:
    """The line as (text, delimiter) pieces: code spans with their backtick run, prose with ""."""
    out: list[tuple[str, str]] = []
    last = 0
    for span in _LINE_SPAN.finditer(text):
        if span.start() > last:
            out.append((text[last : span.start()], ""))
        out.append((span.group(), span.group("run")))
        last = span.end()
    if last < len(text):
        out.append((text[last:], ""))
    return out


def _split_span(span: str, delimiter: str, limit: int) -> list[str]:
    """A code span longer than a message as spans that each fit, with the same delimiter."""
    body = span[len(delimiter) : len(span) - len(delimiter)]
    pad = " " if len(delimiter) > 1 else ""  # `` x `` keeps a backtick off the delimiter
    room = max(limit - 2 * (len(delimiter) + len(pad)), 1)
    if pad:
        body = body.strip(" ")
    return [f"{delimiter}{pad}{part}{pad}{delimiter}" for part in _hard_split(body, room)]


def _hard_split(text: str, room: int) -> list[str]:
    return [text[i : i + room] for i in range(0, len(text), room)] or [""]
