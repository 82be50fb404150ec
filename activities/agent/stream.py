"""Agent output as people read it: Claude Code's JSON event stream turned into readable lines.

`run_agent` passes every piece of the agent's output through a translator: `feed` returns the
lines to log (and to show in the heartbeat and `codedesk logs`), `finish` whatever is left at
the end. A translator also keeps the agent's final answer (for the report) and, where the
output says the agent could not work, the reason (`failure`), and whether it waits forever
without working (`give_up`: codedesk stops it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Protocol

from activities.agent.texts import Paragraphs
from desk.agents.presets import Preset, preset_for
from desk.config.durations import format_duration
from desk.scrub import scrub

LINE_CHARS = 400
"""A readable line about a tool call or result is cut to this many characters."""
RESULT_LINES = 3
"""A tool result shows this many of its lines in the log."""
MAX_EVENT_BYTES = 16 << 20
"""A stream event longer than this is not kept in memory to be parsed: it is skipped, said so."""
STREAM_JSON = "stream-json"


class OutputTranslator(Protocol):
    """Turns an agent's output into readable lines; keeps its final answer and failure."""

    final_answer: str | None
    failure: str | None
    give_up: bool
    """The output says the agent waits forever without working: stop it."""
    texts: list[str]
    """The agent's own texts, whole, since `run_agent` last took them (`AgentTexts.take`)."""

    def feed(self, text: str) -> list[str]:
        """Readable lines (each ending in a newline, or a piece of one) for `text`."""
        ...

    def finish(self) -> list[str]:
        """Readable lines for whatever `feed` kept back, at the end of the output."""
        ...


class PlainOutput:
    """Output that is already text: passed through as it is, watched for the preset's signs
    that the agent could not work."""

    def __init__(self, preset: Preset | None = None) -> None:
        self.final_answer: str | None = None
        self.failure: str | None = None
        self.give_up = False
        self.preset = preset
        self.texts: list[str] = []
        self._paragraphs = Paragraphs()

    def feed(self, text: str) -> list[str]:
        self.texts += self._paragraphs.feed(text)
        preset = self.preset
        if preset is None or self.give_up:
            return [text]
        gave_up = preset.cannot_work_reason(text, preset.gives_up)
        if gave_up is not None:
            self.failure, self.give_up = gave_up, True
        elif preset.cannot_work_reason(text, preset.worked) is not None:
            self.failure = None
        else:
            self.failure = preset.cannot_work_reason(text, preset.cannot_work) or self.failure
        return [text]

    def finish(self) -> list[str]:
        self.texts += self._paragraphs.finish()
        return []


class ClaudeStream:
    """Claude Code's `--output-format stream-json --verbose` events, one JSON object a line.

    Lines that are not JSON events (a warning on stderr) pass through as they are.
    """

    def __init__(self) -> None:
        self.final_answer: str | None = None
        self.failure: str | None = None
        self.give_up = False
        self.texts: list[str] = []
        self._pending: list[str] = []
        self._pending_size = 0
        self._too_long = False

    def feed(self, text: str) -> list[str]:
        # A very long line reaches us in pieces (the reader cuts lines over 64 KiB): keep the
        # pieces until the line ends, so the event parses whole.
        if not text.endswith("\n"):
            self._keep(text)
            return []
        if self._pending or self._too_long:
            self._keep(text)
            return self._line(self._take())
        return self._line(text)

    def finish(self) -> list[str]:
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

    def _line(self, line: str | None) -> list[str]:
        if line is None:
            return [f"claude: an event longer than {MAX_EVENT_BYTES >> 20} MiB was skipped\n"]
        stripped = line.strip()
        if not stripped.startswith("{"):
            return [line if line.endswith("\n") else line + "\n"] if stripped else []
        try:
            event = json.loads(stripped)
        except ValueError:
            return [line if line.endswith("\n") else line + "\n"]
        if not isinstance(event, dict):
            return [line if line.endswith("\n") else line + "\n"]
        return [f"{readable}\n" for readable in self._readable(event)]

    def _readable(self, event: Mapping[str, Any]) -> list[str]:
        kind = event.get("type")
        if kind == "system":
            return _system(event)
        if kind == "assistant":
            blocks = _content(event)
            self.texts += [b["text"] for b in blocks if b.get("type") == "text" and _is_str(b)]
            return _assistant(blocks)
        if kind == "user":
            return _results(_content(event))
        if kind == "result":
            return self._result(event)
        return []

    def _result(self, event: Mapping[str, Any]) -> list[str]:
        answer = event.get("result")
        self.final_answer = answer if isinstance(answer, str) else None
        took = format_duration(timedelta(milliseconds=_number(event.get("duration_ms"))))
        turns = int(_number(event.get("num_turns")))
        if event.get("is_error") or event.get("subtype") != "success":
            why = self.final_answer or str(event.get("subtype") or "an error")
            self.failure = f"Claude Code could not finish: {_cut(why)}"
            return [f"claude: stopped after {turns} turns, {took}: {_cut(why)}"]
        return [f"claude: finished after {turns} turns, {took}"]


def translator_for(argv: Sequence[str]) -> OutputTranslator:
    """The translator for the agent started with `argv`: Claude Code's stream or plain text."""
    for index, part in enumerate(argv):
        if part == f"--output-format={STREAM_JSON}":
            return ClaudeStream()
        if part == "--output-format" and argv[index + 1 : index + 2] == [STREAM_JSON]:
            return ClaudeStream()
    return PlainOutput(preset_for(argv))


def final_output(translator: OutputTranslator, chars: int) -> tuple[str, int] | None:
    """The agent's final answer, scrubbed, as its last `chars` characters and how many were cut;
    None when the output has no final answer apart from its text."""
    if translator.final_answer is None:
        return None
    answer = scrub(translator.final_answer)
    cut = max(0, len(answer) - chars)
    return answer[cut:], cut


def _system(event: Mapping[str, Any]) -> list[str]:
    subtype = event.get("subtype")
    if subtype == "init":
        version = event.get("claude_code_version") or "?"
        return [f"claude {version} started (model {event.get('model') or '?'})"]
    if subtype == "api_retry":
        attempt, most = event.get("attempt"), event.get("max_retries")
        return [f"claude: the model API did not answer; retry {attempt} of {most}"]
    return []


def _content(event: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    message = event.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [block for block in content if isinstance(block, Mapping)]
    return []


def _assistant(blocks: list[Mapping[str, Any]]) -> list[str]:
    lines: list[str] = []
    for block in blocks:
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            lines += block["text"].splitlines() or [""]
        elif block.get("type") == "tool_use":
            lines.append(_cut(f"→ {block.get('name')}: {_tool_input(block.get('input'))}"))
    return lines


def _tool_input(value: Any) -> str:
    """The part of a tool's input a person recognises the call by."""
    if not isinstance(value, Mapping):
        return json.dumps(value, ensure_ascii=False)
    for key in ("command", "file_path", "notebook_path", "path", "pattern", "url", "prompt"):
        if isinstance(value.get(key), str):
            return " ".join(value[key].split())
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _results(blocks: list[Mapping[str, Any]]) -> list[str]:
    lines: list[str] = []
    for block in blocks:
        if block.get("type") != "tool_result":
            continue
        text = _text(block.get("content"))
        shown = [line for line in text.splitlines() if line.strip()]
        mark = "← error: " if block.get("is_error") else "← "
        if not shown:
            lines.append(mark + "(no output)")
            continue
        lines += [_cut(("  " if index else mark) + line) for index, line in enumerate(shown)][
            :RESULT_LINES
        ]
        if len(shown) > RESULT_LINES:
            lines.append(f"  … {len(shown) - RESULT_LINES} more lines")
    return lines


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [part.get("text") for part in content if isinstance(part, Mapping)]
        return "\n".join(part for part in parts if isinstance(part, str))
    return ""


def _is_str(block: Mapping[str, Any]) -> bool:
    return isinstance(block.get("text"), str)


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _cut(text: str) -> str:
    return text if len(text) <= LINE_CHARS else text[: LINE_CHARS - 1] + "…"
