"""A job's messages in its agent's run, without a server: each CLI's seam, the tags the agent
cannot forge, how an attempt starts, and Claude Code's streaming input (written on a real pipe,
as the CLI's process would read it)."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
from datetime import UTC, datetime
from pathlib import Path

import pytest

from activities.agent.session.agent_messages import Conversation, in_file, message_key
from activities.agent.session.live_messages import StdinFeed
from activities.agent.session.opening import (
    AFRESH,
    AFTER_CRASH,
    AFTER_SUSPENSION,
    FOR_MESSAGES,
    Start,
    opening,
)
from activities.agent.session.session import RESUME_PROMPT, continue_argv
from desk.agents.message_seams import (
    RESUME_FOR_MESSAGES,
    command_seam,
    header,
    message_tag,
    seam_of,
    tags_found,
)
from desk.agents.presets import PRESETS
from desk.holds.approvals import Principal
from desk.payloads.jobs import RunAgentInput
from desk.payloads.message_payloads import JobMessage, MessagesDelivered, MessageSeam
from tests.helpers.agent_runs import claude_sessions

AT = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
SESSION = "0b7c2f4e-9a1d-4c3b-8e6f-5d2a1b0c9e8f"
KEY = bytes(range(32))


def message(seq: int, text: str = "also the changelog") -> JobMessage:
    return JobMessage(seq=seq, text=text, by=Principal(id="local:alice", name="alice"), at=AT)


def test_each_preset_and_a_command_agent_has_its_seam() -> None:
    seams = {name: command_seam(command) for name, command in PRESETS.items()}
    assert seams == {
        "claude": MessageSeam.STDIN,
        "codex": MessageSeam.RESUME,
        "opencode": MessageSeam.RESUME,
        "aider": MessageSeam.START_OVER,
        "goose": MessageSeam.START_OVER,
        "demo": MessageSeam.FILE,
    }
    assert seam_of(shlex.split("sh ./my-agent.sh")) == MessageSeam.FILE
    # An owner's Claude Code command without streaming input gets its messages when it ends.
    assert seam_of(["claude", "-p", "--output-format", "stream-json", "--", "x"]) == (
        MessageSeam.RESUME
    )
    assert seam_of(["claude", "-p", "--input-format=stream-json"]) == MessageSeam.STDIN


def test_a_tag_is_the_jobs_own_and_cannot_be_made_without_its_key() -> None:
    said = message(3)
    tag = message_tag(KEY, 7, said)
    assert len(tag) == 16 and tag == message_tag(KEY, 7, said)
    assert message_tag(bytes(32), 7, said) != tag  # another key
    assert message_tag(KEY, 8, said) != tag  # another job
    assert message_tag(KEY, 7, message(3, "other words")) != tag
    assert header(said, tag) == f"[codedesk message 3 from alice, tag {tag}]"
    # A session the agent wrote a header into, guessing: the message is not taken as held.
    forged = "[codedesk message 3 from alice, tag 0123456789abcdef]\nalso the changelog"
    assert tags_found(forged, {3: tag}) == set()
    assert tags_found(f"...{header(said, tag)}...", {3: tag}) == {3}


def test_the_jobs_key_is_made_once_and_kept_from_others(tmp_path: Path) -> None:
    key = message_key(tmp_path)
    assert len(key) == 32 and message_key(tmp_path) == key
    assert (tmp_path / "message-key").stat().st_mode & 0o777 == 0o600


def request(**given: object) -> RunAgentInput:
    fields: dict[str, object] = {
        "number": 7,
        "repo": "acme/api",
        "task": "add notes",
        "agent_command": "x",
        "worktree": "/w",
        "message_run": 1,
    }
    fields.update(given)
    return RunAgentInput.model_validate(fields)


def kept_session(home: Path) -> Path:
    return claude_sessions.kept_session(home, SESSION, project="-w")


CLAUDE = shlex.split(PRESETS["claude"])


def start(home: Path, seam: MessageSeam, **given: object) -> Start:
    unseen = [message(1)]
    tags = {1: "ab" * 8}
    attempt = int(str(given.pop("attempt", 1)))
    run = int(str(given.pop("run", 1)))
    return Start(request(**given), attempt, run, SESSION, home, seam, unseen, tags)


def test_a_first_start_gives_claude_its_task_then_the_messages(tmp_path: Path) -> None:
    opened = opening(CLAUDE, start(tmp_path, MessageSeam.STDIN))
    assert (opened.argv, opened.start, opened.resumed) == (CLAUDE, AFRESH, False)
    assert opened.first_input == ["add notes"] and [m.seq for m in opened.messages] == [1]
    assert not opened.interrupted and not opened.until_turn_end


def test_after_a_suspension_claude_decides_the_deferred_call_before_any_message(
    tmp_path: Path,
) -> None:
    home = kept_session(tmp_path)
    opened = opening(CLAUDE, start(home, MessageSeam.STDIN, run=2, resume_session=SESSION))
    assert opened.argv == [*CLAUDE, "--resume", SESSION]
    assert (opened.start, opened.first_input, opened.until_turn_end) == (
        AFTER_SUSPENSION,
        [],
        True,
    )
    assert [m.seq for m in opened.messages] == [1] and not opened.interrupted


def test_after_a_crash_claude_resumes_with_the_prompt_and_the_messages(tmp_path: Path) -> None:
    home = kept_session(tmp_path)
    opened = opening(CLAUDE, start(home, MessageSeam.STDIN, attempt=2, run=2))
    assert opened.argv == [*CLAUDE, "--resume", SESSION]
    assert (opened.start, opened.first_input) == (AFTER_CRASH, [RESUME_PROMPT])
    assert [m.seq for m in opened.messages] == [1] and opened.interrupted


def test_a_run_for_messages_resumes_claude_with_them(tmp_path: Path) -> None:
    home = kept_session(tmp_path)
    given = start(home, MessageSeam.STDIN, run=2, for_messages=True, continue_session=SESSION)
    opened = opening(CLAUDE, given)
    assert (opened.start, opened.first_input) == (FOR_MESSAGES, [RESUME_FOR_MESSAGES])
    assert opened.argv == [*CLAUDE, "--resume", SESSION] and not opened.interrupted


def test_a_run_for_messages_whose_session_is_gone_starts_over_with_the_task(
    tmp_path: Path,
) -> None:
    codex = ["codex", "exec", "--json", "--", "add notes, then the messages"]
    given = start(tmp_path, MessageSeam.RESUME, run=2, for_messages=True, message_run=2)
    opened = opening(codex, given)
    assert (opened.argv, opened.start, opened.seam) == (codex, AFRESH, MessageSeam.START_OVER)
    assert [m.seq for m in opened.messages] == [1] and not opened.interrupted


def test_opencode_continues_its_last_session_for_messages(tmp_path: Path) -> None:
    argv = ["opencode", "run", "--", "the task"]
    assert continue_argv(argv, tmp_path, "the messages") is None  # no session of its own yet
    data = tmp_path / ".local" / "share" / "opencode"
    data.mkdir(parents=True)
    (data / "opencode.db").write_bytes(b"")
    assert continue_argv(argv, tmp_path, "the messages") == [
        "opencode",
        "run",
        "--continue",
        "--",
        "the messages",
    ]
    given = start(tmp_path, MessageSeam.RESUME, run=2, for_messages=True)
    opened = opening(argv, given)
    assert (opened.start, opened.seam) == (FOR_MESSAGES, MessageSeam.RESUME)
    assert opened.argv[:3] == ["opencode", "run", "--continue"]
    assert "[codedesk message 1 from alice, tag abababababababab]" in opened.argv[-1]


class Told:
    """What a conversation told its job, in order."""

    def __init__(self) -> None:
        self.said: list[MessagesDelivered] = []

    async def __call__(self, told: MessagesDelivered) -> None:
        self.said.append(told)


def read_events(fd: int) -> list[dict[str, object]]:
    os.set_blocking(fd, False)
    data = b""
    try:
        while chunk := os.read(fd, 1 << 16):
            data += chunk
    except BlockingIOError:
        pass
    return [json.loads(line) for line in data.decode().splitlines()]


def texts(event: dict[str, object]) -> list[str]:
    said = event["message"]
    assert isinstance(said, dict)
    return [block["text"] for block in said["content"]]


async def test_claudes_input_holds_a_message_while_a_call_waits_and_defers_none_unread() -> None:
    told = Told()
    talk = Conversation(told, 7, 1, 1, KEY, MessageSeam.STDIN)
    read, write = os.pipe()
    holds = [1]  # a held call waits: it may be deferred
    feed = StdinFeed(write, talk, lambda: holds[0], lambda line: None)
    await feed.open_with(["add notes"], [])
    feed.offer([message(1)])
    await asyncio.sleep(0.3)
    assert [texts(event) for event in read_events(read)] == [["add notes"]]  # not yet
    assert feed.may_defer()
    holds[0] = 0
    for _ in range(50):
        if feed.unread:
            break
        await asyncio.sleep(0.05)
    [event] = read_events(read)
    [written] = texts(event)
    assert written.startswith("[codedesk message 1 from alice, tag ") and written.endswith(
        "\nalso the changelog"
    )
    assert not feed.may_defer()  # written, not taken: no call may be deferred now
    feed.taken([written])
    assert feed.may_defer() and talk.delivered == [1]
    await feed.turn_ended(deferred=False)  # nothing waits: the input ends
    assert feed.closed and os.read(read, 10) == b""
    await feed.close()
    await talk.close()
    assert [(t.seqs, t.taken) for t in told.said] == [([1], False), ([1], True)]
    os.close(read)


async def test_a_turn_that_deferred_a_call_leaves_waiting_messages_for_the_resume() -> None:
    told = Told()
    talk = Conversation(told, 7, 1, 1, KEY, MessageSeam.STDIN)
    read, write = os.pipe()
    feed = StdinFeed(write, talk, lambda: 1, lambda line: None)  # the call waits, then defers
    feed.offer([message(1)])
    await feed.turn_ended(deferred=True)
    assert feed.closed and read_events(read) == []
    await feed.close()
    await talk.close()
    assert talk.delivered == [] and told.said == []  # still the job's, for the resume
    os.close(read)


async def test_a_message_waiting_at_a_turns_end_starts_a_turn_of_its_own() -> None:
    talk = Conversation(Told(), 7, 1, 1, KEY, MessageSeam.STDIN)
    read, write = os.pipe()
    feed = StdinFeed(write, talk, lambda: 0, lambda line: None)
    feed.until_turn_end = True  # a resumed deferral: nothing before its first turn ends
    feed.offer([message(1), message(2, "and the README")])
    await asyncio.sleep(0.2)
    assert read_events(read) == []
    await feed.turn_ended(deferred=False)
    [event] = read_events(read)
    assert len(texts(event)) == 2 and not feed.closed  # one user message, two texts
    await feed.close()
    await talk.close()
    os.close(read)


def test_the_messages_file_says_which_messages_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "messages.jsonl"
    assert in_file(path) == set()
    path.write_text('{"seq": 1, "text": "a"}\nnot json\n{"seq": 3}\n')
    assert in_file(path) == {1, 3}


@pytest.mark.parametrize("seq", [1, 2])
def test_a_message_is_found_in_a_session_by_its_tag_alone(seq: int) -> None:
    talk = Conversation(Told(), 7, 1, 1, KEY, MessageSeam.STDIN)
    said = [message(1), message(2, "two")]
    session = json.dumps({"type": "user", "message": {"content": talk.text(said[seq - 1])}})
    assert talk.found_in(session, said) == {seq}
