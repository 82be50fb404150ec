"""A scripted fake of OpenAI's model APIs on 127.0.0.1: Responses (codex) and Chat Completions
(aider, opencode), streamed as server-sent events.

The conversation's requests get the script's next step, counted from the tool calls (or the
assistant turns) already in the request, so a retried request gets the same answer. Requests
that are not the conversation (a title, a commit message: `is_main` says which) get `side`.
Every request is recorded, and what the Responses answers said they used is added up (`used`);
`standing_prompts` reads the system and developer prompts the model was given, on which a step
may depend (`IfInstructed`).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.real_agents.fake_anthropic import Say, Step, ToolCall, chosen

MODEL = "gpt-fake"
RESPONSES_USAGE = ("input_tokens", "cached_tokens", "output_tokens")
_ids = itertools.count(1)


def shell(command: str) -> ToolCall:
    """The model runs `command` with codex's shell tool."""
    return ToolCall("exec_command", {"cmd": command})


def _has_tools(body: dict[str, Any]) -> bool:
    return bool(body.get("tools"))


@dataclass
class FakeOpenAI:
    """The script, what was asked, and the text side requests get; `url` ends in /v1."""

    steps: list[Step]
    final: str = "All done."
    side: str = "Codedesk task"
    is_main: Callable[[dict[str, Any]], bool] = _has_tools
    task: str = ""
    """Turns are counted after the first message that holds this text (a system prompt may
    carry example turns before it)."""
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    used: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RESPONSES_USAGE, 0))
    """The usage the Responses answers reported, added (OpenAI's input count includes the
    cached tokens): what a codex job's report must say."""
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def conversation(self) -> list[dict[str, Any]]:
        with self.lock:
            return [body for _, body in self.requests if self.is_main(body)]

    def tool_results(self) -> list[str]:
        """What the tools answered, as the model last saw them, in order."""
        asked = self.conversation()
        if not asked:
            return []
        last = asked[-1]
        if "input" in last:
            items = last["input"] if isinstance(last["input"], list) else []
            return [str(i.get("output")) for i in items if i.get("type") == "function_call_output"]
        return [
            _text(m.get("content")) for m in last.get("messages", []) if m.get("role") == "tool"
        ]

    def standing_prompts(self) -> list[str]:
        """The system and developer prompts of each request of the conversation, as one text."""
        return [standing_prompt(body) for body in self.conversation()]

    def step(self, turn: int, body: dict[str, Any]) -> ToolCall | Say:
        step: Step = self.steps[turn] if turn < len(self.steps) else Say(self.final)
        return chosen(step, body, standing_prompt(body))

    def responses(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The Responses API events answering `body`."""
        items = body.get("input") if isinstance(body.get("input"), list) else []
        turn = sum(1 for item in items if item.get("type") == "function_call")
        # Each answer's own usage, as the API reports it: the input (and its cached part) grows
        # with the conversation.
        used = {"input_tokens": 10 + 7 * turn, "cached_tokens": 4 * turn, "output_tokens": 5 + turn}
        with self.lock:
            self.requests.append(("/responses", body))
            for key in RESPONSES_USAGE:
                self.used[key] += used[key]
        step = self.step(turn, body) if self.is_main(body) else Say(self.side)
        number = next(_ids)
        if isinstance(step, Say):
            item: dict[str, Any] = {
                "type": "message",
                "id": f"msg_{number}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": step.text, "annotations": []}],
            }
        else:
            item = {
                "type": "function_call",
                "id": f"fc_{number}",
                "call_id": f"call_{number}",
                "name": step.tool,
                "arguments": json.dumps(step.input),
                "status": "completed",
            }
        response = {
            "id": f"resp_{number}",
            "object": "response",
            "model": body.get("model", MODEL),
            "status": "in_progress",
            "output": [],
        }
        usage = {
            "input_tokens": used["input_tokens"],
            "input_tokens_details": {"cached_tokens": used["cached_tokens"]},
            "output_tokens": used["output_tokens"],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": used["input_tokens"] + used["output_tokens"],
        }
        events: list[dict[str, Any]] = [
            {"type": "response.created", "response": response},
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "status": "in_progress"},
            },
        ]
        if isinstance(step, Say):
            events.append(
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": step.text,
                }
            )
        events += [
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {
                "type": "response.completed",
                "response": {**response, "status": "completed", "output": [item], "usage": usage},
            },
        ]
        return events

    def chat(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """The Chat Completions chunks answering `body`."""
        with self.lock:
            self.requests.append(("/chat/completions", body))
        messages = body.get("messages") or []
        start = next((i for i, m in enumerate(messages) if self.task in _text(m.get("content"))), 0)
        turn = sum(1 for m in messages[start:] if m.get("role") == "assistant")
        step = self.step(turn, body) if self.is_main(body) else Say(self.side)
        number = next(_ids)
        base = {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": body.get("model", MODEL),
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        chunks = [chunk({"role": "assistant", "content": ""})]
        if isinstance(step, Say):
            chunks += [chunk({"content": step.text}), chunk({}, "stop")]
        else:
            call = {
                "index": 0,
                "id": f"call_{number}",
                "type": "function",
                "function": {"name": step.tool, "arguments": json.dumps(step.input)},
            }
            chunks += [chunk({"tool_calls": [call]}), chunk({}, "tool_calls")]
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        chunks.append({**base, "choices": [], "usage": usage})
        return chunks


def standing_prompt(body: dict[str, Any]) -> str:
    """What a request says before the conversation: the Responses API's `instructions` and its
    developer or system items, or Chat Completions' system and developer messages."""
    texts = [str(body["instructions"])] if body.get("instructions") else []
    turns = body.get("input") if isinstance(body.get("input"), list) else body.get("messages")
    for turn in turns or []:
        if isinstance(turn, dict) and turn.get("role") in ("system", "developer"):
            texts.append(_text(turn.get("content")))
    return "\n".join(texts)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _whole_chat(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    finish = "stop"
    for item in chunks:
        for choice in item.get("choices", []):
            delta = choice["delta"]
            message["content"] += delta.get("content") or ""
            if delta.get("tool_calls"):
                message["tool_calls"] = [
                    {key: value for key, value in call.items() if key != "index"}
                    for call in delta["tool_calls"]
                ]
            finish = choice.get("finish_reason") or finish
    return {
        **{key: chunks[0][key] for key in ("id", "created", "model")},
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                models = [{"id": MODEL, "object": "model", "created": 0, "owned_by": "codedesk"}]
                self._json(200, {"object": "list", "data": models})
            else:
                self._json(404, {"error": {"message": f"no {self.path}", "type": "not_found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            path = self.path.split("?", 1)[0].rstrip("/")
            if path.endswith("/responses"):
                self._stream([(e["type"], e) for e in fake.responses(body)])
            elif path.endswith("/chat/completions"):
                chunks = fake.chat(body)
                if body.get("stream"):
                    self._stream([(None, c) for c in chunks], done=True)
                else:
                    self._json(200, _whole_chat(chunks))
            else:
                self._json(404, {"error": {"message": f"no {self.path}", "type": "not_found"}})

        def _stream(
            self, events: list[tuple[str | None, dict[str, Any]]], done: bool = False
        ) -> None:
            text = "".join(
                (f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
                for name, data in events
            ) + ("data: [DONE]\n\n" if done else "")
            payload = text.encode()
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


@contextmanager
def serving(fake: FakeOpenAI) -> Iterator[FakeOpenAI]:
    """Serve `fake` on a free port of 127.0.0.1 for the duration of the block."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
