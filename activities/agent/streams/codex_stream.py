"""codex's `exec --json` events as people read them: the model's messages, its commands with
their exit codes, its file changes and the turn's end.

The events (codex-rs/exec/src/exec_events.rs; proven with codex 0.171.0): `thread.started`
with the session's `thread_id`, `turn.started`, `item.started` / `item.updated` /
`item.completed` with an `item` (`agent_message`, `reasoning`, `command_execution`,
`file_change`, `mcp_tool_call`, `web_search`, `todo_list`, `error`: a warning), then
`turn.completed` with the turn's `usage`, or `turn.failed` with its `error`. An `error` event is
not the end: codex says its retries that way too (`Reconnecting... 2/5`), and a turn that gives
up ends in `turn.failed`. It is logged as codex's human output prints it, `ERROR: <message>`,
where the preset's signs (`gives_up`: waiting for the network forever) read it.

The final answer is the turn's last agent message once the turn completes, as codex itself
keeps it for `--output-last-message`; a failed turn has none.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from activities.agent.streams.json_events import JsonEventStream, cut, output_lines
from activities.agent.streams.signs import Signs
from activities.diagnostics import quoted
from desk.agents.presets import Preset

PROGRAM = "codex"
JSON_OPTION = "--json"
SHELLS = frozenset({"bash", "sh", "zsh"})
"""codex runs a command as `/bin/bash -lc '<command>'`: the log shows the command alone."""


def is_codex_json(argv: Sequence[str]) -> bool:
    """Whether `argv` is `codex exec ... --json` (`--json` among the options, before `--`)."""
    if len(argv) < 2 or argv[0].rsplit("/", 1)[-1] != PROGRAM or argv[1] != "exec":
        return False
    options = argv[: list(argv).index("--")] if "--" in argv else argv
    return JSON_OPTION in options


class CodexStream(JsonEventStream):
    """codex's JSON events, one a line; lines that are not events (its warnings on stderr)
    pass through as they are, read for the preset's signs."""

    def __init__(self, preset: Preset | None = None) -> None:
        super().__init__(PROGRAM)
        self._signs = Signs(preset)
        self._turn_failed: str | None = None
        self._said: str | None = None
        self._shown: set[str] = set()
        """Items whose start is in the log already (a command is shown as it starts)."""
        self._plan = ""

    def _passed(self, line: str) -> str:
        return self._own(line)

    def _read(self) -> None:
        give_up = self._signs.give_up
        self.give_up = give_up
        self.failure = self._signs.failure if give_up else self._turn_failed or self._signs.failure

    def _own(self, line: str) -> str:
        """`line`, codex's own words (not the model's, which may say anything), read for the
        preset's signs."""
        self._signs.read(line)
        return line

    def _readable(self, event: Mapping[str, Any]) -> list[str]:
        kind = event.get("type")
        if kind == "thread.started":
            return [f"codex started (session {event.get('thread_id') or '?'})"]
        if kind in ("item.started", "item.updated", "item.completed"):
            item = event.get("item")
            return self._item(str(kind), item) if isinstance(item, Mapping) else []
        if kind == "turn.completed":
            self.final_answer = self._said
            return [f"codex: finished the turn{_usage(event.get('usage'))}"]
        if kind == "turn.failed":
            why = _message(event.get("error")) or "no reason given"
            self._said = self.final_answer = None
            self._turn_failed = f"codex could not finish: {quoted(why)}"
            return [self._own(f"codex: the turn failed: {cut(why)}")]
        if kind == "error":
            return [self._own(cut(f"ERROR: {_message(event)}"))]
        if kind == "request_user_input":
            questions = event.get("questions")
            asked = questions if isinstance(questions, list) else []
            return [cut(f"codex asks: {q.get('question')}") for q in asked if isinstance(q, dict)]
        return []

    def _item(self, kind: str, item: Mapping[str, Any]) -> list[str]:
        started = kind == "item.started"
        seen = str(item.get("id"))
        shown = seen in self._shown
        if started:
            self._shown.add(seen)
        elif kind == "item.completed":
            self._shown.discard(seen)
        what = item.get("type")
        if what == "command_execution":
            return _command(item, started, shown)
        if what == "mcp_tool_call":
            return _tool_call(item, started, shown)
        if what == "todo_list":
            return self._todo(item)
        if started or kind == "item.updated":
            return []  # the rest are shown once, complete
        if what == "agent_message" and isinstance(item.get("text"), str):
            self._said = item["text"]
            self.texts.append(item["text"])
            return item["text"].splitlines() or [""]
        if what == "reasoning" and isinstance(item.get("text"), str):
            return [cut("(thinking) " + " ".join(item["text"].split()))]
        if what == "file_change":
            return _file_change(item)
        if what == "web_search":
            return [cut(f"→ web search: {item.get('query')}")]
        if what == "error":
            return [self._own(cut(f"codex: warning: {_message(item)}"))]
        return []

    def _todo(self, item: Mapping[str, Any]) -> list[str]:
        steps = [s for s in item.get("items") or [] if isinstance(s, Mapping)]
        done = sum(1 for step in steps if step.get("completed"))
        later = [str(step.get("text")) for step in steps if not step.get("completed")]
        plan = cut(f"plan: {done} of {len(steps)} done" + (f"; next: {later[0]}" if later else ""))
        if plan == self._plan:
            return []
        self._plan = plan
        return [plan]


def _command(item: Mapping[str, Any], started: bool, shown: bool) -> list[str]:
    call = [] if shown else [cut(f"$ {_shell_command(str(item.get('command') or ''))}")]
    if started:
        return call
    status, code = item.get("status"), item.get("exit_code")
    if status == "declined":
        mark = "← declined: "
    elif isinstance(code, int) and not isinstance(code, bool):
        mark = f"← exit {code}: "
    else:
        mark = f"← {status or 'ended'}: "
    return call + output_lines(str(item.get("aggregated_output") or ""), mark)


def _shell_command(command: str) -> str:
    """The command codex ran, without its `/bin/bash -lc` wrapper."""
    try:
        parts = shlex.split(command)
    except ValueError:
        return command
    if len(parts) == 3 and parts[0].rsplit("/", 1)[-1] in SHELLS and parts[1] in ("-c", "-lc"):
        return " ".join(parts[2].split())
    return " ".join(command.split())


def _tool_call(item: Mapping[str, Any], started: bool, shown: bool) -> list[str]:
    arguments = json.dumps(item.get("arguments"), ensure_ascii=False, sort_keys=True)
    call = [] if shown else [cut(f"→ {item.get('server')}.{item.get('tool')}: {arguments}")]
    if started:
        return call
    error = _message(item.get("error"))
    if error:
        return [*call, cut(f"← error: {error}")]
    result = item.get("result")
    content = result.get("content") if isinstance(result, Mapping) else None
    texts = [str(part.get("text")) for part in content or [] if isinstance(part, Mapping)]
    return call + output_lines("\n".join(texts), "← ")


def _file_change(item: Mapping[str, Any]) -> list[str]:
    changes = [c for c in item.get("changes") or [] if isinstance(c, Mapping)]
    listed = ", ".join(f"{change.get('kind')} {change.get('path')}" for change in changes)
    lines = [cut(f"→ patch: {listed or 'no files'}")]
    return lines + (["← the patch failed"] if item.get("status") == "failed" else [])


def _usage(value: Any) -> str:
    if not isinstance(value, Mapping):
        return ""
    numbers = [value.get(key) for key in ("input_tokens", "cached_input_tokens", "output_tokens")]
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        return ""
    given, cached, output = numbers
    return f": {given:,} tokens in ({cached:,} cached), {output:,} out"


def _message(value: Any) -> str:
    message = value.get("message") if isinstance(value, Mapping) else None
    return message if isinstance(message, str) else ""
