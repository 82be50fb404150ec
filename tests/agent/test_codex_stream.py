"""codex's `exec --json` events as people read them: the recorded run of the real CLI in the log
as words, its final message in the report, its failures and its wait for the network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from activities.agent.streams.codex_stream import CodexStream
from activities.agent.streams.stream import ClaudeStream, PlainOutput, final_output, translator_for
from desk.agents.presets import AGENT_PRESETS, PRESETS
from desk.usage.readers import reader_for
from desk.usage.tally import Usage

RECORDED = Path(__file__).parents[1] / "data" / "codex-exec.jsonl"
"""A real `codex exec --json` run (0.171.0) against the fake Responses API: two commands (the
second fails) and a message; its stderr (warnings) is not in it."""
CODEX = AGENT_PRESETS["codex"]


def readable(stream: CodexStream, chunks: list[str]) -> list[str]:
    lines = [line for chunk in chunks for line in stream.feed(chunk)]
    return "".join(lines + stream.finish()).splitlines()


def events(*given: dict[str, Any]) -> list[str]:
    return [json.dumps(event) + "\n" for event in given]


def test_a_recorded_codex_run_reads_as_words_and_keeps_its_final_message() -> None:
    stream = CodexStream(CODEX)
    lines = readable(stream, RECORDED.read_text().splitlines(keepends=True))
    assert lines == [
        "codex started (session 01a23ad7-855a-70f2-b28a-fd4534f729eb)",
        "codex: warning: Model metadata for `gpt-fake` not found. Defaulting to fallback"
        " metadata; this can degrade performance and cause issues.",
        "$ printf 'one\\ntwo\\nthree\\nfour\\nfive\\n'",
        "← exit 0: one",
        "  two",
        "  three",
        "  … 2 more lines",
        "$ ls /nonexistent",
        "← exit 2: ls: cannot access '/nonexistent': No such file or directory",
        "I listed it.",
        "The second listing failed.",
        "codex: finished the turn: 30 tokens in (0 cached), 15 out",
    ]
    assert stream.final_answer == "I listed it.\nThe second listing failed."
    assert final_output(stream, 1000) == (stream.final_answer, 0)
    assert stream.texts == ["I listed it.\nThe second listing failed."]
    assert stream.failure is None and not stream.give_up


def test_the_recorded_run_reports_the_tokens_the_fake_answered_with() -> None:
    reader = reader_for("codex", "gpt-fake")
    for line in RECORDED.read_text().splitlines(keepends=True):
        reader.feed(line)
    assert reader.usage == Usage(input_tokens=30, output_tokens=15, model="gpt-fake")


def test_the_preset_asks_for_json_and_only_codex_exec_json_is_read_as_its_events() -> None:
    argv = PRESETS["codex"].split()
    assert argv[:3] == ["codex", "exec", "--json"]
    assert isinstance(translator_for(argv), CodexStream)
    assert isinstance(translator_for(["/opt/bin/codex", "exec", "--json", "--", "-x"]), CodexStream)
    assert isinstance(translator_for(["codex", "exec", "--", "--json"]), PlainOutput)
    assert isinstance(translator_for(["codex", "exec", "--", "fix"]), PlainOutput)
    assert isinstance(translator_for(["codex", "--json"]), PlainOutput)
    assert isinstance(translator_for(["my-codex", "exec", "--json"]), PlainOutput)
    assert isinstance(translator_for(["claude", "--output-format=stream-json"]), ClaudeStream)


def test_waiting_forever_for_the_network_is_given_up_and_a_retry_is_no_failure() -> None:
    stream = CodexStream(CODEX)
    retry = {"type": "error", "message": "Reconnecting... 2/5 (stream disconnected)"}
    assert readable(stream, events(retry)) == ["ERROR: Reconnecting... 2/5 (stream disconnected)"]
    assert stream.failure is None and not stream.give_up
    # As codex 0.171.0 says it, on stdout, when its model's port refuses the connection.
    waiting = "Reconnecting... waiting for network (Connection failed: error sending request)"
    stream.feed(json.dumps({"type": "error", "message": waiting}) + "\n")
    assert stream.give_up
    assert stream.failure == f"codex could not work: ERROR: {waiting}"


def test_a_failed_turn_is_a_failure_with_its_reason_and_no_final_answer() -> None:
    stream = CodexStream(CODEX)
    lines = readable(
        stream,
        events(
            {"type": "turn.started"},
            {"type": "item.completed", "item": {"id": "i0", "type": "agent_message", "text": "Hm"}},
            {"type": "error", "message": "unexpected status 401 Unauthorized"},
            {"type": "turn.failed", "error": {"message": "unexpected status 401 Unauthorized"}},
        ),
    )
    assert lines == [
        "Hm",
        "ERROR: unexpected status 401 Unauthorized",
        "codex: the turn failed: unexpected status 401 Unauthorized",
    ]
    assert stream.failure == "codex could not finish: unexpected status 401 Unauthorized"
    assert stream.final_answer is None
    assert final_output(stream, 100) is None


def test_other_items_read_as_words_and_what_is_no_event_passes_through() -> None:
    stream = CodexStream(CODEX)
    todo = [{"text": "read", "completed": True}, {"text": "write", "completed": False}]
    lines = readable(
        stream,
        [
            "WARNING: proceeding, even though we could not create PATH aliases\n",
            *events(
                {
                    "type": "item.completed",
                    "item": {"id": "r", "type": "reasoning", "text": "**A**\n\nB"},
                },
                {"type": "item.started", "item": {"id": "t", "type": "todo_list", "items": todo}},
                {"type": "item.updated", "item": {"id": "t", "type": "todo_list", "items": todo}},
                {
                    "type": "item.completed",
                    "item": {
                        "id": "p",
                        "type": "file_change",
                        "changes": [
                            {"path": "a.py", "kind": "update"},
                            {"path": "b", "kind": "add"},
                        ],
                        "status": "completed",
                    },
                },
                {
                    "type": "item.completed",
                    "item": {
                        "id": "c",
                        "type": "command_execution",
                        "command": "git push origin HEAD:main",
                        "aggregated_output": "",
                        "exit_code": None,
                        "status": "declined",
                    },
                },
                {
                    "type": "item.started",
                    "item": {
                        "id": "m",
                        "type": "mcp_tool_call",
                        "server": "docs",
                        "tool": "find",
                        "arguments": {"q": "x"},
                        "status": "in_progress",
                    },
                },
                {
                    "type": "item.completed",
                    "item": {
                        "id": "m",
                        "type": "mcp_tool_call",
                        "server": "docs",
                        "tool": "find",
                        "arguments": {"q": "x"},
                        "status": "completed",
                        "result": {"content": [{"type": "text", "text": "found it"}]},
                    },
                },
                {"type": "item.completed", "item": {"id": "w", "type": "web_search", "query": "q"}},
                {"type": "item.completed", "item": {"id": "u", "type": "unknown_kind"}},
                {"type": "turn.completed", "usage": {"input_tokens": 5}},
            ),
            "[1, 2]\n",
            '{"type": "thread.started"',  # cut at the end of the output
        ],
    )
    assert lines == [
        "WARNING: proceeding, even though we could not create PATH aliases",
        "(thinking) **A** B",
        "plan: 1 of 2 done; next: write",
        "→ patch: update a.py, add b",
        "$ git push origin HEAD:main",
        "← declined: (no output)",
        '→ docs.find: {"q": "x"}',
        "← found it",
        "→ web search: q",
        "codex: finished the turn",
        "[1, 2]",
        '{"type": "thread.started"',
    ]
    assert stream.final_answer is None and stream.texts == []
