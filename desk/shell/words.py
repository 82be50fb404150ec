"""Shell words: removing quotes (ANSI-C `$'...'` included) and brace expansion."""

from __future__ import annotations

import re

_ANSI = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r"}
_ANSI |= {"t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI_NUMBER = re.compile(r"x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}")
_RANGE = re.compile(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([^\d\\])\.\.([^\d\\])")
_DQ_RUN = re.compile(r'[^"\\\\]+')
_QUOTES = re.compile(r"[\\'\"]")
MAX_BRACE_WORDS = 256
"""A brace expansion making more words than this is left as one unresolvable word."""


def unquote(raw: str) -> str:
    """A word's value: quotes removed, `$'...'` escapes decoded, expansions left as written."""
    if not _QUOTES.search(raw):
        return raw
    out: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            out.append(raw[i + 1 : i + 2])
            i += 2
        elif c == "'":
            j = raw.find("'", i + 1)
            j = len(raw) if j < 0 else j
            out.append(raw[i + 1 : j])
            i = j + 1
        elif raw.startswith("$'", i):
            text, i = _ansi_c(raw, i + 2)
            out.append(text)
        elif c == '"' or raw.startswith('$"', i):
            i += 1 if c == '"' else 2
            while i < len(raw) and raw[i] != '"':
                if run := _DQ_RUN.match(raw, i):
                    out.append(run.group())
                    i = run.end()
                    continue
                if raw[i] == "\\" and raw[i + 1 : i + 2] in ('"', "\\", "$", "`", "\n"):
                    i += 1
                out.append(raw[i : i + 1])
                i += 1
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def expand_braces(raw: str) -> list[str]:
    """The words an unquoted brace expansion makes of a word's source, as the shell expands it.

    More than `MAX_BRACE_WORDS` words, and the word is returned as it is (it still reads as
    unresolvable: it has braces and commas in it).
    """
    words = _braces(raw, MAX_BRACE_WORDS)
    return [raw] if words is None else words


def _braces(raw: str, budget: int) -> list[str] | None:
    found = _brace_group(raw)
    if found is None:
        return [raw]
    start, end, alternatives = found
    words: list[str] = []
    for alternative in alternatives:
        more = _braces(raw[:start] + alternative + raw[end + 1 :], budget - len(words))
        if more is None or len(words) + len(more) > budget:
            return None
        words += more
    return words


def _brace_group(raw: str) -> tuple[int, int, list[str]] | None:
    """The first unquoted `{a,b}` or `{x..y}` in a word: its start, its end, its alternatives."""
    if "{" not in raw or "}" not in raw:
        return None
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            i += 2
        elif c == "'" or raw.startswith("$'", i):
            i = skip_quote(raw, i + (c != "'"), "'")
        elif c == '"':
            i = skip_quote(raw, i, '"')
        elif raw.startswith("${", i):
            j = raw.find("}", i)
            i = len(raw) if j < 0 else j + 1
        elif c == "{" and (group := _brace_close(raw, i)) is not None:
            return group
        else:
            i += 1
    return None


def _brace_close(raw: str, start: int) -> tuple[int, int, list[str]] | None:
    """The group opened at `start`, if it closes and has a comma or a range at its top level."""
    depth, cuts, i = 0, [start], start
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" or raw.startswith("$'", i):
            i = skip_quote(raw, i + (c != "'"), "'")
            continue
        if c == '"':
            i = skip_quote(raw, i, '"')
            continue
        depth += (c == "{") - (c == "}")
        if c == "," and depth == 1:
            cuts.append(i)
        if depth == 0:
            if len(cuts) > 1:
                cuts.append(i)
                return start, i, [raw[a + 1 : b] for a, b in zip(cuts, cuts[1:], strict=False)]
            items = _range(raw[start + 1 : i])
            return None if items is None else (start, i, items)
        i += 1
    return None


def _range(inner: str) -> list[str] | None:
    m = _RANGE.fullmatch(inner)
    if m is None:
        return None
    if m.group(4):
        a, b = ord(m.group(4)), ord(m.group(5))
        return [chr(n) for n in range(a, b + (1 if b >= a else -1), 1 if b >= a else -1)]
    a, b, step = int(m.group(1)), int(m.group(2)), abs(int(m.group(3) or 1)) or 1
    if abs(b - a) // step >= MAX_BRACE_WORDS:
        return [str(a), str(b)]  # too many to list: the ends stand for them all
    return [str(n) for n in range(a, b + (1 if b >= a else -1), step if b >= a else -step)]


def skip_quote(s: str, i: int, quote: str) -> int:
    """The end of a quoted string whose opening quote is at `i` (past the text: not closed)."""
    j = i + 1
    while j < len(s) and s[j] != quote:
        j += 2 if s[j] == "\\" and (quote == '"' or s[i - 1 : i] == "$") else 1
    return j + 1


def decode_escapes(text: str) -> str:
    """Decode backslash escapes as `echo -e`, `printf` and `$'...'` do (`\\x70` is `p`)."""
    return _ansi_c(text, 0, stop="")[0] if "\\" in text else text


def _ansi_c(raw: str, i: int, stop: str = "'") -> tuple[str, int]:
    """Decode a `$'...'` string whose text starts at `i`; return it and where it ends."""
    out: list[str] = []
    while i < len(raw) and raw[i] != stop:
        if raw[i] != "\\":
            out.append(raw[i])
            i += 1
            continue
        nxt = raw[i + 1 : i + 2]
        if m := _ANSI_NUMBER.match(raw, i + 1):
            digits = m.group()
            number = int(digits, 8) if digits[0].isdigit() else int(digits[1:], 16)
            out.append(chr(min(number, 0x10FFFF)) if number < 0xD800 or number > 0xDFFF else "?")
            i = m.end()
        elif nxt == "c" and i + 2 < len(raw):
            out.append(chr(ord(raw[i + 2]) & 0x1F))
            i += 3
        else:
            out.append(_ANSI.get(nxt, "\\" + nxt))
            i += 2
    return "".join(out), i + 1
