"""Reports laid out once, as blocks of typed spans; each target renders the same blocks.

A layout says what is shown and what each piece of text is (our own words, text from a job
or a model, a name such as a path or a SHA), never how a target marks it up: the terminal
(`surfaces.render.terminal.block_lines`), plain text, and Discord
(`surfaces.render.discord.markdown`) each decide that, so no target's markup ever reaches
another.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Kind(StrEnum):
    """Where a span's text comes from, which decides how a target may show it."""

    OURS = "ours"
    """codedesk's own words: shown as they are."""
    TEXT = "text"
    """Prose from a job, a repository or a model: shown exactly, hidden characters made visible."""
    NAME = "name"
    """A name from data (a path, a branch, a SHA, a tool): shown literally, as code."""


class Tone(StrEnum):
    """A hint a styled target may show as a colour; plain targets ignore it."""

    PLAIN = "plain"
    STRONG = "strong"
    GOOD = "good"
    WARN = "warn"
    BAD = "bad"
    DIM = "dim"


class Role(StrEnum):
    HEADING = "heading"
    """The first line: what the whole report is about."""
    LINE = "line"
    """A sentence of its own."""
    FIELD = "field"
    """`label: value`; the items or code that follow belong to it."""
    ITEM = "item"
    """One entry of a list under the field before it."""
    CODE = "code"
    """Preformatted text (agent output, git state, a command): its line breaks are kept."""


@dataclass(frozen=True)
class Span:
    text: str
    kind: Kind = Kind.OURS
    tone: Tone = Tone.PLAIN


@dataclass(frozen=True)
class Block:
    role: Role
    parts: tuple[Span, ...] = ()
    label: tuple[Span, ...] = ()
    """A field's label (our words, or a key from data as a NAME span)."""
    code: str = ""
    """A CODE block's text."""
    lang: str = "text"
    """A CODE block's language, for a target that marks it (`json`; empty: none)."""


def ours(text: str, tone: Tone = Tone.PLAIN) -> Span:
    return Span(text, Kind.OURS, tone)


def text(value: str, tone: Tone = Tone.PLAIN) -> Span:
    return Span(value, Kind.TEXT, tone)


def name(value: str, tone: Tone = Tone.PLAIN) -> Span:
    return Span(value, Kind.NAME, tone)


def heading(*parts: Span) -> Block:
    return Block(Role.HEADING, parts)


def line(*parts: Span) -> Block:
    return Block(Role.LINE, parts)


def field(label: str | Span, *parts: Span) -> Block:
    return Block(Role.FIELD, parts, (ours(label) if isinstance(label, str) else label,))


def item(*parts: Span) -> Block:
    return Block(Role.ITEM, parts)


def code(value: str, lang: str = "text") -> Block:
    return Block(Role.CODE, code=value, lang=lang)


def joined(spans: Iterable[Span], separator: str = ", ") -> tuple[Span, ...]:
    """Spans separated by our own separator."""
    out: list[Span] = []
    for span in spans:
        if out:
            out.append(ours(separator))
        out.append(span)
    return tuple(out)


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def cut_mark(cut: int) -> str:
    """`… [N chars]`: where a text was cut, and how many characters (code points) were cut."""
    return f"… [{cut} chars]"
