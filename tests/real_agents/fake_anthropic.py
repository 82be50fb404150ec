"""A scripted fake of the Anthropic Messages API on 127.0.0.1, for the real Claude Code CLI.

The conversation's requests (those that offer tools) get the script's next step: a tool call
or a final text. Which step is next is counted from the assistant turns already in the request,
so a retried request gets the same answer. Side requests without tools (a session title, a
summary) get a short text, and so does a subagent on a Haiku model (one the script started with
`Task`'s `model: "haiku"`). Every request is recorded for the test to read, the system prompt
the model was given included (`system_prompts`), and a step may depend on it (`IfInstructed`).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "claude-sonnet-4-5"
USAGE_KEYS = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
)
SUBAGENT_SAYS = "The subagent looked around."
_message_numbers = itertools.count(1)


@dataclass(frozen=True)
class ToolCall:
    """The model calls `tool` with `input`."""

    tool: str
    input: dict[str, Any]


def bash(command: str) -> ToolCall:
    """The model runs `command` with Claude Code's Bash tool."""
    return ToolCall("Bash", {"command": command, "description": "run a command"})


@dataclass(frozen=True)
class Say:
    """The model answers with `text` and ends its turn."""

    text: str


@dataclass(frozen=True)
class IfInstructed:
    """The model takes `step` only when its system prompt holds `marker`; otherwise it ends its
    turn with `otherwise`, as a model nobody told to commit may do."""

    marker: str
    step: ToolCall | Say
    otherwise: str = "Done; nothing asked me to commit."


@dataclass(frozen=True)
class IfTold:
    """The model takes `step` only when the conversation so far (the request's messages) holds
    `words`, as a model that read a person's message acts on it; otherwise `otherwise`."""

    words: str
    step: ToolCall | Say
    otherwise: ToolCall | Say = Say("Done; nobody asked for more.")


Step = ToolCall | Say | IfInstructed | IfTold


@dataclass
class FakeAnthropic:
    """The script and what was asked; `url` is set while the server runs."""

    steps: list[Step]
    final: str = "All done."
    refuse: str = ""
    """When set, every message request is refused with this message (HTTP 400, which Claude
    Code does not retry)."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    used: dict[str, int] = field(default_factory=lambda: dict.fromkeys(USAGE_KEYS, 0))
    """The usage the answers reported, added: what the job's report must say."""
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def conversation(self) -> list[dict[str, Any]]:
        """The requests of the main conversation (those that offer tools)."""
        with self.lock:
            return [body for body in self.requests if body.get("tools")]

    def system_prompts(self) -> list[str]:
        """The system prompt of each request of the conversation, as one text."""
        return [system_text(body) for body in self.conversation()]

    def tool_results(self) -> list[str]:
        """The text of every tool result the model got back, in order, once each."""
        asked = self.conversation()
        if not asked:
            return []
        results = []
        for message in asked[-1].get("messages", []):
            content = message.get("content")
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            for block in content:
                if block.get("type") == "tool_result":
                    results.append(_text_of(block.get("content")))
        return results

    def answer(self, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """The server-sent events answering `body`."""
        turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        # Each answer's own usage, as the API reports it: the input grows with the conversation.
        usage = {
            "input_tokens": 7 + turn,
            "cache_creation_input_tokens": 3,
            "cache_read_input_tokens": 100 * turn,
            "output_tokens": 11 + turn,
        }
        with self.lock:
            self.requests.append(body)
            for key in USAGE_KEYS:
                self.used[key] += usage[key]
        if not body.get("tools"):
            return _events([{"type": "text", "text": "Codedesk task"}], "end_turn", "side", usage)
        if "haiku" in str(body.get("model", "")):
            return _events([{"type": "text", "text": SUBAGENT_SAYS}], "end_turn", "sub", usage)
        step = chosen(self.steps[turn] if turn < len(self.steps) else Say(self.final), body)
        if isinstance(step, Say):
            text = [{"type": "text", "text": step.text}]
            return _events(text, "end_turn", f"turn{turn}", usage)
        call = {
            "type": "tool_use",
            "id": f"toolu_{turn:04d}",
            "name": step.tool,
            "input": step.input,
        }
        return _events([call], "tool_use", f"turn{turn}", usage)


def chosen(step: Step, body: dict[str, Any], prompt: str | None = None) -> ToolCall | Say:
    """The step the model takes, given the request it was sent: its system prompt (`prompt`,
    else the Messages API's), and the conversation so far."""
    if isinstance(step, IfInstructed):
        standing = system_text(body) if prompt is None else prompt
        return step.step if step.marker in standing else Say(step.otherwise)
    if isinstance(step, IfTold):
        return step.step if told(body, step.words) else step.otherwise
    return step


def told(body: dict[str, Any], words: str) -> int:
    """How many times `words` appear in the request's conversation (the Messages API's
    `messages`, the Responses API's `input`)."""
    conversation = body.get("messages", body.get("input"))
    return json.dumps(conversation, ensure_ascii=False).count(words)


def system_text(body: dict[str, Any]) -> str:
    """A Messages request's system prompt (a string or text blocks), as one text."""
    return _text_of(body.get("system"))


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _events(
    blocks: list[dict[str, Any]], stop: str, name: str, usage: dict[str, int]
) -> list[tuple[str, dict[str, Any]]]:
    # Claude Code merges streamed messages that share an id: each turn needs its own.
    message = {
        "id": f"msg_{name}_{next(_message_numbers)}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        # message_start carries the input and a first output count; message_delta the final
        # (cumulative) output count, as the Messages API streams them.
        "usage": {**usage, "output_tokens": 1},
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": message})
    ]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


def _handler(fake: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            self._json(
                404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}}
            )

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.startswith("/v1/messages") or self.path.startswith(
                "/v1/messages/count_tokens"
            ):
                if "count_tokens" in self.path:
                    self._json(200, {"input_tokens": 10})
                else:
                    self._json(
                        404,
                        {
                            "type": "error",
                            "error": {"type": "not_found_error", "message": self.path},
                        },
                    )
                return
            if fake.refuse:
                error = {"type": "invalid_request_error", "message": fake.refuse}
                self._json(400, {"type": "error", "error": error})
                return
            events = fake.answer(body)
            if not body.get("stream"):
                self._json(200, _whole_message(events))
                return
            payload = b"".join(
                f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in events
            )
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _json(self, status: int, document: dict[str, Any]) -> None:
            payload = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def _whole_message(events: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    message = dict(events[0][1]["message"])
    content: list[dict[str, Any]] = []
    for name, data in events:
        if name == "content_block_start":
            content.append(dict(data["content_block"]))
        elif name == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                content[-1]["text"] += delta["text"]
            else:
                content[-1]["input"] = json.loads(delta["partial_json"])
        elif name == "message_delta":
            message["stop_reason"] = data["delta"]["stop_reason"]
            message["usage"] = {**message["usage"], **data["usage"]}
    message["content"] = content
    return message


@contextmanager
def serving(fake: FakeAnthropic) -> Iterator[FakeAnthropic]:
    """Serve `fake` on a free port of 127.0.0.1 for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
