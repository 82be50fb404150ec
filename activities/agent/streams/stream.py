"""Agent output as people read it: Claude Code's JSON event stream (and codex's, in
`activities.agent.streams.codex_stream`) turned into readable lines.

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

from activities.agent.streams.codex_stream import CodexStream, is_codex_json
from activities.agent.streams.json_events import JsonEventStream, cut, output_lines
from activities.agent.streams.signs import Signs
from activities.agent.streams.texts import Paragraphs
from activities.diagnostics import quoted
from desk.agents.presets import Preset, preset_for
from desk.config.basics.durations import format_duration
from desk.scrub import scrub

STREAM_JSON = "stream-json"
DEFERRED = "tool_deferred"
DEFERS_FROM = (2, 1, 89)
"""The first Claude Code whose PreToolUse hook may answer `defer` in `-p` mode."""


class OutputTranslator(Protocol):
    """Turns an agent's output into readable lines; keeps its final answer and failure."""

    final_answer: str | None
    failure: str | None
    give_up: bool
    """The output says the agent waits forever without working: stop it."""
    defers: bool
    """The CLI can defer a held call (its hook's `defer`): the job may suspend it."""
    deferred: bool
    """The CLI ended on a deferred call (`stop_reason: "tool_deferred"`)."""
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
        self.texts: list[str] = []
        self.defers = False
        self.deferred = False
        self.preset = preset
        self._signs = Signs(preset)
        self._paragraphs = Paragraphs()

    def feed(self, text: str) -> list[str]:
        self.texts += self._paragraphs.feed(text)
        self._signs.read(text)
        self.failure, self.give_up = self._signs.failure, self._signs.give_up
        return [text]

    def finish(self) -> list[str]:
        self.texts += self._paragraphs.finish()
        return []


class ClaudeStream(JsonEventStream):
    """Claude Code's `--output-format stream-json --verbose` events, one JSON object a line.

    Lines that are not JSON events (a warning on stderr) pass through as they are.
    """

    def __init__(self) -> None:
        super().__init__("claude")
        self.taken: list[str] = []
        """The texts of the user messages the CLI took into its conversation since run_agent
        last looked (with `--replay-user-messages` it says each as it takes it)."""
        self.turns_ended: list[bool] = []
        """A `result` event since run_agent last looked, each: whether its turn deferred a call."""

    def _readable(self, event: Mapping[str, Any]) -> list[str]:
        kind = event.get("type")
        if kind == "system":
            if event.get("subtype") == "init":
                self.defers = defers(event.get("claude_code_version"))
            return _system(event)
        if kind == "assistant":
            blocks = _content(event)
            self.texts += [b["text"] for b in blocks if b.get("type") == "text" and _is_str(b)]
            return _assistant(blocks)
        if kind == "user":
            blocks = _content(event)
            self.taken += [b["text"] for b in blocks if b.get("type") == "text" and _is_str(b)]
            return _results(blocks)
        if kind == "result":
            lines = self._result(event)
            self.turns_ended.append(self.deferred)
            return lines
        return []

    def _result(self, event: Mapping[str, Any]) -> list[str]:
        answer = event.get("result")
        self.final_answer = answer if isinstance(answer, str) else None
        took = format_duration(timedelta(milliseconds=_number(event.get("duration_ms"))))
        turns = int(_number(event.get("num_turns")))
        self.deferred = False  # a turn after a message: only the last turn's end counts
        if event.get("stop_reason") == DEFERRED and not event.get("is_error"):
            self.deferred = True
            return [f"claude: deferred a held call after {turns} turns, {took}"]
        if event.get("is_error") or event.get("subtype") != "success":
            why = self.final_answer or str(event.get("subtype") or "an error")
            self.failure = f"Claude Code could not finish: {quoted(why)}"
            return [f"claude: stopped after {turns} turns, {took}: {cut(why)}"]
        return [f"claude: finished after {turns} turns, {took}"]


def defers(version: object) -> bool:
    """Whether Claude Code `version` (its init event's `claude_code_version`) can defer a call:
    2.1.89 or later. An unreadable version cannot, so the hold waits live as for other CLIs
    (an older CLI given `defer` might let the call run)."""
    if not isinstance(version, str):
        return False
    try:
        parts = tuple(int(part) for part in version.split(" ", 1)[0].split(".")[:3])
    except ValueError:
        return False
    return len(parts) == 3 and parts >= DEFERS_FROM


def translator_for(argv: Sequence[str]) -> OutputTranslator:
    """The translator for the agent started with `argv`: Claude Code's stream, codex's JSON
    events or plain text."""
    if is_codex_json(argv):
        return CodexStream(preset_for(argv))
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
            lines.append(cut(f"→ {block.get('name')}: {_tool_input(block.get('input'))}"))
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
        if block.get("type") == "tool_result":
            mark = "← error: " if block.get("is_error") else "← "
            lines += output_lines(_text(block.get("content")), mark)
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
