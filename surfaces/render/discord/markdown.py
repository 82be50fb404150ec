"""Blocks as Discord markdown: text escaped, names as code, code fenced so nothing closes it."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby

from surfaces.render.blocks import Block, Kind, Role, Span, Tone
from surfaces.render.discord import card_text
from surfaces.render.discord.message_text import code, plain


def markdown(blocks: Iterable[Block]) -> str:
    """One markdown text; `surfaces.render.discord.message_text.split_message` cuts it into
    messages."""
    lines = []
    for block in blocks:
        if block.role == Role.CODE:
            lines.append(f"```{block.lang}\n{card_text.code(block.code)}\n```")
        elif block.role == Role.HEADING:
            lines.append("## " + _capital(_spans(block.parts)))
        elif block.role == Role.FIELD:
            label = _label(block.label)
            lines.append(f"{label} {_spans(block.parts)}" if block.parts else label)
        elif block.role == Role.ITEM:
            lines.append("- " + _spans(block.parts))
        else:
            lines.append(_spans(block.parts))
    return "\n".join(lines)


def _label(label: tuple[Span, ...]) -> str:
    """`**Branch**:` for our words, `**Working directory**:` for a label from data as it is,
    and `` `key`: `` for a name: code, so a key from data cannot pass for a label."""
    if all(span.kind == Kind.NAME for span in label):
        return _spans(label) + ":"
    shown = _spans(label)
    return f"**{_capital(shown) if label[0].kind == Kind.OURS else shown}**:"


def _spans(spans: Iterable[Span]) -> str:
    out = []
    for strong, run in groupby(spans, key=lambda span: span.tone == Tone.STRONG):
        shown = "".join(_span(span) for span in run)
        out.append(f"**{shown}**" if strong and shown else shown)
    return "".join(out)


def _span(span: Span) -> str:
    if span.kind == Kind.NAME:
        return code(span.text)
    if span.kind == Kind.TEXT:
        return plain(span.text)
    return span.text


def _capital(value: str) -> str:
    """Discord's headings and labels in our words start with a capital: `## Job 3`, `**Branch**`."""
    return value[:1].upper() + value[1:]
