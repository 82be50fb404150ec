"""Every character of a value made visible: which characters show nothing, and their spelling.

Target-neutral: the terminal and Discord both show model-written values through these, and each
adds its own escaping (Discord's markdown in `surfaces.render.discord.card_text`).
"""

from __future__ import annotations

import json
import re
from typing import Any

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
BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
LINE_BREAK = re.compile("\r\n|[\n\r\u2028\u2029\x85]")
HIDDEN_IN_CODE = re.compile(HIDDEN.pattern.replace("\x00-\x1f", "\x00-\x09\x0b-\x1f", 1))
"""In preformatted text a line break is a line break; every other hidden character is shown."""


def invisible(s: str) -> bool:
    """Whether a string shows nothing: empty, white space, zero-width or other hidden chars."""
    return not HIDDEN.sub("", s).strip()


def hidden_count(value: str) -> int:
    """How many characters of `value` a terminal card spells out (line breaks excepted)."""
    return len(HIDDEN_IN_CODE.findall(value))


def escape_char(c: str) -> str:
    return json.dumps(c)[1:-1]  # \t, \n, \u200b, or a surrogate pair: JSON's own spelling


def spell_out(s: str, unsafe: re.Pattern[str]) -> str:
    return unsafe.sub(lambda m: escape_char(m.group()), s)


def quote(s: str) -> str:
    """A string that shows nothing, written out quoted with every hidden character escaped."""
    return '"' + "".join(c if c == " " else escape_char(c) for c in s) + '"'


def to_json(value: Any, indent: int | None = None) -> str:
    """JSON on which hidden characters are escaped, so every character in it can be seen."""
    separators = None if indent else (",", ":")
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=separators, default=str)
    return spell_out(text, JSON_HIDDEN)
