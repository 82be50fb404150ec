"""The agent's own texts worth reading as messages of their own: long ones, or with structure.

A translator (`activities.agent.streams.stream`) hands over the agent's texts whole: Claude Code's
text blocks, or a plain agent's paragraphs (`Paragraphs`). `AgentTexts` keeps those worth
reading (`worth_reading`: as long as the threshold, or with a heading, a list, a table or a
code fence), scrubbed and capped, the latest few, with a count: the heartbeat carries them,
and the job's thread and `codedesk watch` show each one once.
"""

from __future__ import annotations

import re
from collections import deque

from desk.scrub import scrub

TEXTS_KEPT = 5
"""Texts one heartbeat carries: a follower looking less often is told how many it missed."""
PARAGRAPH_CHARS = 1 << 16
"""A plain agent's paragraph without an end is handed over at this size."""

_HEADING = re.compile(r"^ {0,3}#{1,6} \S", re.MULTILINE)
_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,3}[.)]) \S", re.MULTILINE)
_TABLE_RULE = re.compile(r"^ {0,3}\|? *:?-{3,}:? *(?:\| *:?-{3,}:? *)+\|? *$", re.MULTILINE)
_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})", re.MULTILINE)


def worth_reading(text: str, chars: int) -> bool:
    """Whether `text` is shown as a message of its own: `chars` characters or more, or with a
    heading, a list of two items or more, a table or a code fence. `chars` 0: never."""
    body = text.strip()
    if chars <= 0 or not body:
        return False
    if len(body) >= chars:
        return True
    structured = _HEADING.search(body) or _TABLE_RULE.search(body) or _FENCE.search(body)
    return bool(structured) or len(_ITEM.findall(body)) >= 2


class Paragraphs:
    """A plain agent's output as paragraphs: lines up to a blank line outside a code fence."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._size = 0
        self._fenced = False

    def feed(self, text: str) -> list[str]:
        """The paragraphs that `text` (a line, or a piece of one) completes."""
        if self._lines and not self._lines[-1].endswith("\n"):
            self._lines[-1] += text
        else:
            self._lines.append(text)
        self._size += len(text)
        if not text.endswith("\n"):
            return self._take() if self._size >= PARAGRAPH_CHARS else []
        line = self._lines[-1]
        if _FENCE.match(line):
            self._fenced = not self._fenced
        if (not line.strip() and not self._fenced) or self._size >= PARAGRAPH_CHARS:
            return self._take()
        return []

    def finish(self) -> list[str]:
        """The paragraph left at the end of the output."""
        return self._take()

    def _take(self) -> list[str]:
        text = "".join(self._lines).strip("\n")
        self._lines, self._size, self._fenced = [], 0, False
        return [text] if text.strip() else []


class AgentTexts:
    """The latest texts worth reading of one attempt of the agent, and how many there were."""

    def __init__(self, chars: int, most: int) -> None:
        self.chars = chars
        self.most = most
        self.kept: deque[str] = deque(maxlen=TEXTS_KEPT)
        self.total = 0

    def take(self, texts: list[str]) -> None:
        """Keep those of `texts` worth reading (scrubbed, cut to `most`), and empty `texts`."""
        for text in texts:
            if worth_reading(text, self.chars):
                self.kept.append(_cut(scrub(text.strip("\n")), self.most))
                self.total += 1
        texts.clear()


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"
