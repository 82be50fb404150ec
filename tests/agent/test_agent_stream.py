"""Agent output as people read it: Claude Code's event stream in the log, the final answer in
the report, and the signs of an agent that could not work although it exited 0."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from activities.agent.streams.json_events import MAX_EVENT_BYTES
from activities.agent.streams.stream import (
    ClaudeStream,
    PlainOutput,
    defers,
    final_output,
    translator_for,
)
from desk.agents.presets import AGENT_PRESETS
from desk.config.settings import DeskSettings
from desk.payloads.jobs import JobOutcome
from desk.scrub import scrub
from surfaces.clients.desk_client import DeskClient

RECORDED = Path(__file__).parents[1] / "data" / "claude-stream.jsonl"
"""A real `claude -p --output-format stream-json --verbose` run (2.1.197) against the fake."""
STREAM = ["--output-format", "stream-json"]


def readable(translator: ClaudeStream | PlainOutput, chunks: list[str]) -> list[str]:
    lines = [line for chunk in chunks for line in translator.feed(chunk)]
    return "".join(lines + translator.finish()).splitlines()


def test_a_recorded_claude_stream_reads_as_lines_and_keeps_the_final_answer() -> None:
    stream = ClaudeStream()
    lines = readable(stream, RECORDED.read_text().splitlines(keepends=True))
    assert lines == [
        "claude 2.1.197 started (model claude-opus-4-8[1m])",
        "→ Write: notes.txt",
        "← File created successfully at: notes.txt (file state is current in your context — "
        "no need to Read it back)",
        "→ Bash: ls /nonexistent",
        "← error: Exit code 2",
        "  ls: cannot access '/nonexistent': No such file or directory",
        "→ Bash: printf 'one\\ntwo\\nthree\\nfour\\nfive\\n'",
        "← one",
        "  two",
        "  three",
        "  … 2 more lines",
        "I wrote notes.txt.",
        "The listing failed.",
        "claude: finished after 4 turns, 2.9s",
    ]
    assert stream.final_answer == "I wrote notes.txt.\nThe listing failed."
    assert stream.failure is None


def test_an_event_cut_into_pieces_is_read_whole_and_a_huge_one_is_skipped_saying_so() -> None:
    text = "x " * 100_000
    event = json.dumps(
        {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}}
    )
    pieces = [event[i : i + 65536] for i in range(0, len(event), 65536)]
    assert len(pieces) > 2
    assert readable(ClaudeStream(), [*pieces[:-1], pieces[-1] + "\n"]) == [text]
    huge = ["y" * (1 << 20)] * ((MAX_EVENT_BYTES >> 20) + 1) + ["}\n"]
    assert readable(ClaudeStream(), huge) == ["claude: an event longer than 16 MiB was skipped"]
    assert readable(ClaudeStream(), ['{"type": "result", "result": "cut at the end"}']) == [
        "claude: stopped after 0 turns, 0s: cut at the end"
    ]


def test_lines_that_are_not_events_pass_through_and_unknown_events_are_quiet() -> None:
    lines = readable(
        ClaudeStream(),
        ["warning: something\n", "{not json\n", "[1, 2]\n", '{"type": "stream_event"}\n', "\n"],
    )
    assert lines == ["warning: something", "{not json", "[1, 2]"]


def test_an_error_result_is_a_failure_with_its_reason_and_retries_are_said() -> None:
    stream = ClaudeStream()
    retry = {"type": "system", "subtype": "api_retry", "attempt": 3, "max_retries": 10}
    result = {
        "type": "result",
        "subtype": "success",
        "is_error": True,
        "num_turns": 1,
        "duration_ms": 177329,
        "result": "API Error: Unable to connect to API (ConnectionRefused)",
    }
    lines = readable(stream, [json.dumps(retry) + "\n", json.dumps(result) + "\n"])
    assert lines == [
        "claude: the model API did not answer; retry 3 of 10",
        "claude: stopped after 1 turns, 2m57s: API Error: Unable to connect to API "
        "(ConnectionRefused)",
    ]
    assert stream.failure == (
        "Claude Code could not finish: API Error: Unable to connect to API (ConnectionRefused)"
    )


def test_the_translator_follows_the_command() -> None:
    assert isinstance(translator_for(["claude", "-p", *STREAM, "--", "-x"]), ClaudeStream)
    assert isinstance(translator_for(["claude", "--output-format=stream-json"]), ClaudeStream)
    assert isinstance(translator_for(["claude", "-p", "--", "--output-format"]), PlainOutput)
    plain = translator_for(["/opt/bin/aider", "--message=fix"])
    assert isinstance(plain, PlainOutput) and plain.preset == AGENT_PRESETS["aider"]
    assert translator_for(["./my-agent.sh"]).feed("Error: whatever\n") == ["Error: whatever\n"]


def test_plain_output_of_a_preset_is_watched_for_signs_it_could_not_work() -> None:
    aider = translator_for(["aider", "--message=fix"])
    aider.feed("Aider v0.86.2\n")
    assert aider.failure is None
    aider.feed("litellm.APIConnectionError: OpenAIException - Connection error.\n")
    assert aider.failure == (
        "aider could not work: litellm.APIConnectionError: OpenAIException - Connection error."
    )
    mine = translator_for(["./my-agent.sh"])
    mine.feed("litellm.APIConnectionError: nope\n")
    assert mine.failure is None


def test_the_final_answer_is_capped_and_scrubbed() -> None:
    stream = ClaudeStream()
    token = "ghp_" + "a" * 36
    stream.feed(
        json.dumps({"type": "result", "subtype": "success", "result": f"{token} 123456"}) + "\n"
    )
    scrubbed = scrub(f"{token} 123456")
    assert token not in scrubbed
    assert final_output(stream, 6) == ("123456", len(scrubbed) - 6)
    assert final_output(stream, 1000) == (scrubbed, 0)
    assert final_output(PlainOutput(), 10) is None


async def test_a_job_whose_agent_streams_logs_lines_and_reports_the_final_answer(
    desk: DeskClient, settings: DeskSettings, origin: Path
) -> None:
    replay = "import sys; sys.stdout.write(open(sys.argv[1]).read())"
    command = f"{sys.executable} -c '{replay}' {RECORDED} --output-format stream-json"
    await desk.add_repo("acme/api", str(origin))
    number = await desk.start_job("acme/api", "stream", agent_command=command)
    report = await desk.wait(number)
    assert report.outcome == JobOutcome.NOTHING, report
    assert report.output == "I wrote notes.txt.\nThe listing failed."
    log = (settings.jobs_dir / str(number) / "agent.log").read_text()
    assert "→ Bash: ls /nonexistent\n" in log
    assert "claude: finished after 4 turns, 2.9s\n" in log
    assert '"type"' not in log


def test_codex_waiting_forever_for_the_network_is_given_up() -> None:
    codex = translator_for(["codex", "exec", "--", "fix"])
    codex.feed("ERROR: Reconnecting... 2/5\n")
    assert codex.failure is None and not codex.give_up
    codex.feed("ERROR: Reconnecting... waiting for network\n")
    assert codex.give_up
    assert codex.failure == "codex could not work: ERROR: Reconnecting... waiting for network"


def test_a_retry_that_worked_is_no_failure_and_colours_are_no_disguise() -> None:
    aider = translator_for(["aider", "--message=fix"])
    aider.feed("litellm.InternalServerError: InternalServerError: OpenAIException - Connection\n")
    aider.feed("Retrying in 0.2 seconds...\n")
    assert aider.failure is not None
    aider.feed("Tokens: 767 sent, 12 received.\n")
    assert aider.failure is None
    opencode = translator_for(["opencode", "run", "--", "fix"])
    opencode.feed("\x1b[91m\x1b[1mError: \x1b[0mCannot connect to API: Unable to connect.\n")
    assert (
        opencode.failure
        == "opencode could not work: Error: Cannot connect to API: Unable to connect."
    )


def test_only_a_claude_code_that_can_defer_is_suspended() -> None:
    assert defers("2.1.89") and defers("2.1.197") and defers("2.1.332") and defers("3.0.0")
    assert not defers("2.1.88") and not defers("1.9.999") and not defers("2.1")
    assert not defers(None) and not defers("") and not defers("next") and not defers(2.2)


def test_a_deferred_call_ends_the_stream_as_deferred() -> None:
    stream = ClaudeStream()
    init = {"type": "system", "subtype": "init", "claude_code_version": "2.1.197", "model": "m"}
    result = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "stop_reason": "tool_deferred",
        "num_turns": 3,
        "duration_ms": 1000,
        "result": "",
    }
    lines = readable(stream, [json.dumps(init) + "\n", json.dumps(result) + "\n"])
    assert stream.defers and stream.deferred and stream.failure is None
    assert lines[-1] == "claude: deferred a held call after 3 turns, 1.0s", lines
