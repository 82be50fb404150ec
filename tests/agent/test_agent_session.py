"""The agent CLI's session: its id read from Claude Code's stream, the command that resumes it."""

from __future__ import annotations

import json
from pathlib import Path

from activities.agent.session.session import (
    CLAUDE_STATE_BYTES,
    RESUME_PROMPT,
    SessionWatch,
    adopt_session,
    deferral_resume_argv,
    earlier_attempts,
    forget_sessions,
    resume_argv,
    stream_resume_argv,
)
from desk.agents.presets import preset_command
from desk.payloads.agent_progress import AgentHeartbeat
from tests.helpers.agent_runs import claude_sessions

SESSION = "0b7c2f4e-9a1d-4c3b-8e6f-5d2a1b0c9e8f"
ARGV = ["claude", "-p", "--output-format", "stream-json", "--verbose", "--", "add notes"]


def init_line(session_id: object, kind: str = "system") -> str:
    return json.dumps({"type": kind, "subtype": "init", "session_id": session_id}) + "\n"


def kept_session(home: Path, session_id: str = SESSION) -> Path:
    return claude_sessions.kept_session(home, session_id)


def test_the_session_id_is_read_from_the_init_event_once() -> None:
    watch = SessionWatch()
    assert not watch.feed('{"type": "assistant", "message": {"content": "hi"}}\n')
    assert watch.feed(init_line(SESSION))
    assert watch.session_id == SESSION
    assert not watch.feed(init_line(SESSION))  # told again: nothing new to heartbeat


def test_a_session_id_that_is_no_plain_id_is_not_taken() -> None:
    watch = SessionWatch()
    for line in (
        init_line("--dangerously-skip-permissions"),
        init_line("a b"),
        init_line(7),
        init_line(SESSION, kind="user"),
        "not json session_id\n",
        '{"session_id": "' + SESSION,
    ):
        assert not watch.feed(line), line
    assert watch.session_id == ""


def test_the_next_attempt_resumes_a_session_kept_in_the_jobs_home(tmp_path: Path) -> None:
    home = kept_session(tmp_path)
    assert resume_argv(ARGV, SESSION, home) == [
        *ARGV[:-2],
        "--resume",
        SESSION,
        "--",
        RESUME_PROMPT,
    ]


def test_a_session_file_without_a_line_of_the_conversation_is_started_over(
    tmp_path: Path,
) -> None:
    """Claude Code 2.1.337 stopped at a spend limit its first answer reached had written only
    its bookkeeping line: `--resume` of that says "No conversation found" (CI, 2026-12-07), so
    every way of resuming starts over instead, and a file cut off mid-line resumes from what
    it holds."""
    argv = preset_command("claude").split()
    home = kept_session(tmp_path)
    [session] = (home / ".claude" / "projects").glob(f"*/{SESSION}.jsonl")
    session.write_text(claude_sessions.BOOKKEEPING_LINE + '{"type": "user", "mess')
    assert resume_argv(ARGV, SESSION, home) is None
    assert stream_resume_argv(argv, SESSION, home) is None
    assert deferral_resume_argv(ARGV, SESSION, home) is None
    session.write_text(claude_sessions.BOOKKEEPING_LINE + "not json\n" + claude_sessions.USER_LINE)
    assert stream_resume_argv(argv, SESSION, home) == [*argv, "--resume", SESSION]


def test_the_presets_command_has_the_shape_that_is_resumed(tmp_path: Path) -> None:
    """The `claude` preset takes its prompt on its standard input: resumed, it names the
    session and nothing else changes."""
    argv = preset_command("claude").split()
    home = kept_session(tmp_path)
    assert stream_resume_argv(argv, SESSION, home) == [*argv, "--resume", SESSION]
    assert stream_resume_argv(argv, SESSION, tmp_path / "elsewhere") is None
    assert stream_resume_argv(argv, "../x", home) is None
    assert stream_resume_argv(["codex", "exec", "--json"], SESSION, home) is None


def test_a_claude_command_with_its_task_after_dashes_is_resumed_with_a_prompt(
    tmp_path: Path,
) -> None:
    """An owner's own Claude Code command without streaming input."""
    argv = ["claude", "-p", "--output-format", "stream-json", "--", "TASK"]
    resumed = resume_argv(argv, SESSION, kept_session(tmp_path), prompt="the messages")
    assert resumed == [*argv[:-2], "--resume", SESSION, "--", "the messages"]


def test_without_a_kept_session_or_a_known_shape_the_attempt_starts_over(tmp_path: Path) -> None:
    assert resume_argv(ARGV, SESSION, tmp_path) is None  # the CLI died before it wrote one
    home = kept_session(tmp_path)
    assert resume_argv(ARGV, "", home) is None
    assert resume_argv(ARGV, "../x", home) is None
    assert resume_argv(["codex", "exec", "--", "add notes"], SESSION, home) is None
    assert resume_argv(["claude", "--", "add notes"], SESSION, home) is None  # not print mode
    assert resume_argv(["claude", "-p", "add notes"], SESSION, home) is None


def test_the_earlier_attempts_are_read_from_the_last_heartbeat() -> None:
    beat = AgentHeartbeat(pgid=4, session_id=SESSION, resumed=1, started_over=2)
    found = earlier_attempts([beat.model_dump(mode="json")])
    assert (found.session_id, found.resumed, found.started_over) == (SESSION, 1, 2)
    assert earlier_attempts([beat]).session_id == SESSION
    assert earlier_attempts([]).session_id == ""
    assert earlier_attempts(["junk"]).session_id == ""
    assert earlier_attempts([{"pgid": "not a number"}]).session_id == ""


def test_the_agents_homes_go_and_what_they_link_to_stays(tmp_path: Path) -> None:
    folder, owner = tmp_path / "jobs" / "3", tmp_path / "owner"
    (owner / ".ssh").mkdir(parents=True)
    (owner / ".ssh" / "config").write_text("kept\n")
    kept_session(folder / "agent-home")
    (folder / "home").mkdir()
    (folder / "home" / ".ssh").symlink_to(owner / ".ssh")
    (folder / "agent.log").write_text("log\n")
    forget_sessions(folder)
    assert sorted(path.name for path in folder.iterdir()) == ["agent.log"]
    assert (owner / ".ssh" / "config").read_text() == "kept\n"


def test_a_continuation_carries_the_session_and_the_clis_own_state(tmp_path: Path) -> None:
    earlier, home, worktree = (
        tmp_path / "jobs" / "3",
        tmp_path / "jobs" / "4" / "agent-home",
        tmp_path / "wt" / "4",
    )
    kept_session(earlier / "agent-home")
    state = earlier / "agent-home" / ".claude" / ".claude.json"
    state.write_text('{"userID": "u1", "migrationVersion": 13}')
    assert adopt_session(earlier, home, SESSION, worktree)
    [session] = (home / ".claude" / "projects").glob(f"*/{SESSION}.jsonl")
    assert session.parent.name.endswith("-wt-4") and session.read_text() == (
        claude_sessions.BOOKKEEPING_LINE + claude_sessions.USER_LINE
    )
    assert json.loads((home / ".claude" / ".claude.json").read_text())["userID"] == "u1"


def test_a_continuation_carries_no_state_that_is_a_link_or_oversized(tmp_path: Path) -> None:
    outside = tmp_path / "owner.json"
    outside.write_text('{"oauthAccount": "secret"}')
    for n, make in enumerate(
        [
            lambda path: path.symlink_to(outside),
            lambda path: path.write_text(" " * (CLAUDE_STATE_BYTES + 1)),
        ]
    ):
        earlier, home = tmp_path / f"earlier-{n}", tmp_path / f"home-{n}"
        kept_session(earlier / "agent-home")
        make(earlier / "agent-home" / ".claude" / ".claude.json")
        assert adopt_session(earlier, home, SESSION, tmp_path / "wt")
        assert not (home / ".claude" / ".claude.json").exists()
        assert not (home / ".claude" / ".claude.json").is_symlink()


def test_a_continuation_carries_no_state_from_a_cli_folder_that_links_elsewhere(
    tmp_path: Path,
) -> None:
    owners = kept_session(tmp_path / "owner") / ".claude"
    (owners / ".claude.json").write_text('{"oauthAccount": "secret"}')
    earlier, home = tmp_path / "earlier", tmp_path / "home"
    (earlier / "home").mkdir(parents=True)
    (earlier / "home" / ".claude").symlink_to(owners)
    assert adopt_session(earlier, home, SESSION, tmp_path / "wt")
    assert not (home / ".claude" / ".claude.json").exists()


def test_a_continuation_copies_nothing_through_a_link_planted_in_its_home(
    tmp_path: Path,
) -> None:
    earlier, home, outside = tmp_path / "earlier", tmp_path / "home", tmp_path / "outside"
    kept_session(earlier / "agent-home")
    (earlier / "agent-home" / ".claude" / ".claude.json").write_text('{"userID": "u1"}')
    outside.mkdir()
    home.mkdir()
    (home / ".claude").symlink_to(outside)  # an earlier attempt's agent wrote this home
    adopt_session(earlier, home, SESSION, tmp_path / "wt")
    assert list(outside.iterdir()) == []


def kept_thread(home: Path, session_id: str = SESSION) -> Path:
    day = home / ".codex" / "sessions" / "2026" / "12" / "03"
    day.mkdir(parents=True)
    (day / f"rollout-2026-12-03T07-41-13-{session_id}.jsonl").write_text("{}\n")
    return home


def test_codexs_thread_id_is_read_from_its_first_event() -> None:
    watch = SessionWatch()
    assert not watch.feed('{"type": "turn.started"}\n')
    assert not watch.feed(json.dumps({"type": "item.completed", "thread_id": SESSION}) + "\n")
    assert watch.feed(json.dumps({"type": "thread.started", "thread_id": SESSION}) + "\n")
    assert watch.session_id == SESSION


def test_the_codex_presets_next_attempt_resumes_its_thread(tmp_path: Path) -> None:
    argv = preset_command("codex").replace("{task}", "TASK").split()
    home = kept_thread(tmp_path)
    resumed = resume_argv(argv, SESSION, home)
    cut = argv.index("--")
    assert resumed == [
        "codex",
        "exec",
        "resume",
        *argv[2:cut],
        SESSION,
        "--",
        RESUME_PROMPT,
    ]
    assert resume_argv(argv, SESSION, kept_session(tmp_path / "claude")) is None  # no thread
    plain = ["codex", "exec", "--", "TASK"]  # no events to read the id from
    assert resume_argv(plain, SESSION, home) is None
    # An option `codex exec resume` does not take would fail the attempt: it starts over.
    assert resume_argv(["codex", "exec", "--json", "-C", "/w", "--", "TASK"], SESSION, home) is None
    assert resume_argv(["codex", "exec", "--json", "--", "a", "b"], SESSION, home) is None


def test_after_a_suspension_the_session_resumes_with_no_prompt(tmp_path: Path) -> None:
    """Claude Code asks its hook again for the deferred call: no task, no prompt."""
    assert deferral_resume_argv(ARGV, SESSION, tmp_path) is None  # no session kept: start over
    home = kept_session(tmp_path)
    assert deferral_resume_argv(ARGV, SESSION, home) == [*ARGV[:-2], "--resume", SESSION]
    assert deferral_resume_argv(ARGV, "../x", home) is None
    assert deferral_resume_argv(["codex", "exec", "--json", "--", "x"], SESSION, home) is None
