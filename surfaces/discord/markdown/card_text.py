"""Text that a card (or any surface) shows from model-written values: escaped, spelled out, fenced.

Nothing a model wrote may format text, link anywhere, mention anyone or hide a character, so
every surface builds its text from these helpers.
"""

from __future__ import annotations

import json
import re
from typing import Any

ZWSP = "\u200b"

# Characters that show nothing or change how their neighbours show: controls, format
# characters (zero-width, bidi, BOM, soft hyphen, tags), line and paragraph separators,
# variation selectors and blank fillers. A test checks the categories against unicodedata.
_FORMAT = (
    "\u00ad\u034f\u061c\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u180b-\u180f"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff"
    "\uffa0\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef"
)
HIDDEN = re.compile(f"[\x00-\x1f\x7f-\x9f{_FORMAT}]")
# json.dumps already escapes C0 controls inside strings; the newlines left are its indent.
JSON_HIDDEN = re.compile(f"[\x7f-\x9f{_FORMAT}]")
# Bidi controls reorder what a person reads ("Trojan source"), so they are always spelled out.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
UNSAFE_INLINE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")
UNSAFE_BLOCK = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
LINE_BREAK = re.compile("\r\n|[\n\r\u2028\u2029\x85]")
_MARKDOWN = re.compile(r"([\\`*_~|<>\[\]()#&])")
# A zero-width space after '@' stops @everyone/@here and e-mail autolinks; one inside '://'
# and 'www.' stops URL autolinks, which an escape alone does not stop in every renderer.
_LINKY = re.compile(r"(?<=@)|(?<=:)(?=//)|(?i:(?<=www)(?=\.))")


def invisible(s: str) -> bool:
    """Whether a string shows nothing: empty, white space, zero-width or other hidden chars."""
    return not HIDDEN.sub("", s).strip()


def escape_char(c: str) -> str:
    return json.dumps(c)[1:-1]  # \t, \n, \u200b, or a surrogate pair: JSON's own spelling


def spell_out(s: str, unsafe: re.Pattern[str]) -> str:
    return unsafe.sub(lambda m: escape_char(m.group()), s)


def quote(s: str) -> str:
    """A string that shows nothing, written out quoted with every hidden character escaped."""
    return '"' + "".join(c if c == " " else escape_char(c) for c in s) + '"'


def escape(s: str) -> str:
    """Plain text that formats nothing, links nowhere and mentions no one, on one line.

    Text for after a label: at a line's start `-`, `+`, `=` or `1.` could still open a list
    or a heading, so an approval shows every value, the action too, under its label.
    """
    s = _MARKDOWN.sub(r"\\\1", spell_out(s, UNSAFE_INLINE))
    return _LINKY.sub(ZWSP, s)


def break_runs(s: str, longest: int) -> str:
    """Split backtick runs longer than ``longest`` with zero-width spaces."""

    def split(m: re.Match[str]) -> str:
        run = m.group()
        return ZWSP.join(run[i : i + longest] for i in range(0, len(run), longest))

    return re.sub(f"`{{{longest + 1},}}", split, s)


def span(s: str) -> str:
    """Inline code for a name, path or quoted string: shown literally, never formatted."""
    text = quote(s) if invisible(s) else spell_out(s, UNSAFE_INLINE)
    text = break_runs(text.replace("@", "@" + ZWSP), 1)
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def code(s: str) -> str:
    """Text for a fenced block: its line breaks kept, nothing in it able to close the block.

    Backtick runs are split to at most two with zero-width spaces, so the three-backtick
    fence is longer than any run inside: CommonMark needs that, and Discord ends a block at
    the first triple backtick whatever the opening fence.
    """
    text = spell_out(LINE_BREAK.sub("\n", s), UNSAFE_BLOCK).replace("@", "@" + ZWSP)
    return break_runs(text, 2)


def fenced(code: str, lang: str = "") -> str:
    return f"```{lang}\n{code}\n```"


def to_json(value: Any, indent: int | None = None) -> str:
    """JSON on which hidden characters are escaped, so every character in it can be seen."""
    separators = None if indent else (",", ":")
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=separators, default=str)
    return spell_out(text, JSON_HIDDEN)
