"""Discord text from model-written values: escaped, spelled out, fenced (markdown only).

Nothing a model wrote may format text, link anywhere, mention anyone or hide a character, so
Discord's text is built from these helpers; which characters they spell out, and how, is
`surfaces.render.layout.visible`, shared with the terminal.
"""

from __future__ import annotations

import re

from surfaces.render.layout.visible import BIDI, LINE_BREAK, invisible, quote, spell_out

ZWSP = "\u200b"

UNSAFE_INLINE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{BIDI}]")
UNSAFE_BLOCK = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI}]")
_MARKDOWN = re.compile(r"([\\`*_~|<>\[\]()#&])")
# A zero-width space after '@' stops @everyone/@here and e-mail autolinks; one inside '://'
# and 'www.' stops URL autolinks, which an escape alone does not stop in every renderer.
_LINKY = re.compile(r"(?<=@)|(?<=:)(?=//)|(?i:(?<=www)(?=\.))")


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
