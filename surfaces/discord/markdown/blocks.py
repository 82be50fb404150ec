"""Blocks as Discord markdown: text escaped, names as code, code fenced so nothing closes it."""

from __future__ import annotations

from collections.abc import Iterable

from surfaces.discord.markdown import card_text
from surfaces.discord.markdown.text import code, plain
from surfaces.render.blocks import Block, Kind, Role, Span


def markdown(blocks: Iterable[Block]) -> str:
    """One markdown text; `surfaces.discord.markdown.text.split_message` cuts it into messages."""
    lines = []
    for block in blocks:
        if block.role == Role.CODE:
            lines.append(f"```text\n{card_text.code(block.code)}\n```")
        elif block.role == Role.HEADING:
            lines.append("## " + _capital(_spans(block.parts)))
        elif block.role == Role.FIELD:
            label = f"**{_capital(_spans(block.label))}**:"
            lines.append(f"{label} {_spans(block.parts)}" if block.parts else label)
        elif block.role == Role.ITEM:
            lines.append("- " + _spans(block.parts))
        else:
            lines.append(_spans(block.parts))
    return "\n".join(lines)


def _spans(spans: Iterable[Span]) -> str:
    out = []
    for span in spans:
        if span.kind == Kind.NAME:
            out.append(code(span.text))
        elif span.kind == Kind.TEXT:
            out.append(plain(span.text))
        else:
            out.append(span.text)
    return "".join(out)


def _capital(value: str) -> str:
    """Discord's headings and labels start with a capital: `## Job 3`, `**Branch**`."""
    return value[:1].upper() + value[1:]
