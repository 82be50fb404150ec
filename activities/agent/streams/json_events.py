"""What the translators of JSON event output share: whole events from pieces of lines, one base
that feeds them and turns them into readable lines, and the way a tool's output or a long line is
cut for the log.

An agent CLI that prints JSON events (Claude Code's stream-json, codex's `exec --json`) prints
one a line, but `run_agent` reads its output in pieces (a line over 64 KiB comes in several):
`JsonLines` joins them, so each event parses whole, and passes on as text what is no event (a
warning on stderr). `JsonEventStream` is what each translator builds on: its `feed` and `finish`,
and the record `run_agent` reads; a translator says only what each event reads as.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

LINE_CHARS = 400
"""A readable line about a tool call or result is cut to this many characters."""
RESULT_LINES = 3
"""A tool result shows this many of its lines in the log."""
MAX_EVENT_BYTES = 16 << 20
"""A stream event longer than this is not kept in memory to be parsed: it is skipped, said so."""

Event = Mapping[str, Any]


class JsonLines:
    """The output of `program` as whole lines: each an event (a JSON object) or text to pass on
    as it is (ending in a newline)."""

    def __init__(self, program: str) -> None:
        self.program = program
        self._pending: list[str] = []
        self._pending_size = 0
        self._too_long = False

    def feed(self, text: str) -> list[Event | str]:
        """The events and text lines that `text` (a line, or a piece of one) completes."""
        if not text.endswith("\n"):
            self._keep(text)
            return []
        if self._pending or self._too_long:
            self._keep(text)
            return self._line(self._take())
        return self._line(text)

    def finish(self) -> list[Event | str]:
        """The line left without its newline at the end of the output."""
        if self._pending or self._too_long:
            return self._line(self._take())
        return []

    def _keep(self, text: str) -> None:
        self._pending_size += len(text)
        if self._pending_size > MAX_EVENT_BYTES:
            self._pending.clear()
            self._too_long = True
        else:
            self._pending.append(text)

    def _take(self) -> str | None:
        line = None if self._too_long else "".join(self._pending)
        self._pending.clear()
        self._pending_size = 0
        self._too_long = False
        return line

    def _line(self, line: str | None) -> list[Event | str]:
        if line is None:
            mib = MAX_EVENT_BYTES >> 20
            return [f"{self.program}: an event longer than {mib} MiB was skipped\n"]
        stripped = line.strip()
        if not stripped:
            return []
        text = line if line.endswith("\n") else line + "\n"
        if not stripped.startswith("{"):
            return [text]
        try:
            event = json.loads(stripped)
        except ValueError:
            return [text]
        return [event] if isinstance(event, dict) else [text]


class JsonEventStream(ABC):
    """A translator of `program`'s JSON events, one a line: each event as the readable lines
    `_readable` says, each line that is no event passed on as `_passed` says (as it is, by
    default), and after each piece of output what `_read` concludes from it."""

    def __init__(self, program: str) -> None:
        self.final_answer: str | None = None
        self.failure: str | None = None
        self.give_up = False
        self.texts: list[str] = []
        self.defers = False
        self.deferred = False
        self._lines = JsonLines(program)

    def feed(self, text: str) -> list[str]:
        """Readable lines (each ending in a newline) for `text`, a line or a piece of one."""
        return self._readable_lines(self._lines.feed(text))

    def finish(self) -> list[str]:
        """Readable lines for the line `feed` kept back, at the end of the output."""
        return self._readable_lines(self._lines.finish())

    def _readable_lines(self, lines: list[Event | str]) -> list[str]:
        readable: list[str] = []
        for line in lines:
            if isinstance(line, str):
                readable.append(self._passed(line))
            else:
                readable += [f"{text}\n" for text in self._readable(line)]
        self._read()
        return readable

    @abstractmethod
    def _readable(self, event: Event) -> list[str]:
        """The lines (without their newlines) that `event` reads as."""

    def _passed(self, line: str) -> str:
        """A line that is no event (a warning on stderr), passed on."""
        return line

    def _read(self) -> None:
        """What the translator concludes from the lines it has just read: nothing, unless it
        says."""
        return None


def output_lines(text: str, mark: str) -> list[str]:
    """A tool's output as the log shows it: its first lines that show something, the first after
    `mark`, the others indented, and how many more there were."""
    shown = [line for line in text.splitlines() if line.strip()]
    if not shown:
        return [mark + "(no output)"]
    lines = [cut(("  " if index else mark) + line) for index, line in enumerate(shown)]
    more = [f"  … {len(shown) - RESULT_LINES} more lines"] if len(shown) > RESULT_LINES else []
    return lines[:RESULT_LINES] + more


def cut(text: str) -> str:
    """`text` cut to `LINE_CHARS`, marked where it was cut."""
    return text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1] + "…"
