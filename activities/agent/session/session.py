"""The agent CLI's own session: its id read from the CLI's output, and the command that resumes it.

Claude Code keeps each conversation in its configuration folder (`CLAUDE_CONFIG_DIR`, in the
job's own home, which is kept across the job's attempts) as `projects/<cwd>/<id>.jsonl`, and its
stream-json output says the id in its first event (`{"type": "system", "subtype": "init",
"session_id": ...}`). codex keeps its threads in `CODEX_HOME` (in the job's home too) as
`sessions/<yyyy>/<mm>/<dd>/rollout-<time>-<id>.jsonl`, and `exec --json` says the id first
(`{"type": "thread.started", "thread_id": ...}`). `run_agent` heartbeats the id as soon as it is
read; Temporal gives the last heartbeat's details to the next attempt
(`activity.info().heartbeat_details`), which then runs `claude -p --resume <id>` or `codex exec
resume <id>` with a short prompt instead of the task, when the session's file is still in the
home (for Claude Code: with a line of the conversation in it). Anything else (no id heard, no
file, another CLI or shape of command) starts over as before. After a suspension (a deferred
held call) the job's next run resumes the session with
no prompt at all: Claude Code asks its hook again for the deferred call. A run for messages that
came as the agent's last run ended resumes its session with them as the prompt. Claude Code with
streaming input (the `claude` preset) takes no prompt in its command: its resumed session gets
the prompt, if any, on its standard input (`stream_resume_argv`); opencode, whose output names
no session, continues the job's last one (`continue_argv`, for messages only: a crash starts it
over). The agent's homes outlive the job for the host's CODEDESK_SESSION_KEEP, so that a
continuation (`codedesk say` to a finished job) resumes its session; then `SessionKeep`
removes them (`forget_sessions`).
"""

from __future__ import annotations

import json
import re
import shutil
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from activities.agent.process.cli_home import folder_inside
from activities.agent.process.launch import PRIVATE_HOME, SANDBOX_HOME
from desk.agents.homes import CLI_HOMES
from desk.payloads.agent_progress import AgentHeartbeat

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
CONVERSATION_TYPES = frozenset({"user", "assistant"})
"""The types of a Claude Code session file's lines that are the conversation itself."""
CLAUDE_KEY = re.compile(r"[^A-Za-z0-9]")
"""What Claude Code turns into '-' in a working directory's path, for the folder of its
sessions."""
"""What a session id may be before it goes into the agent's command."""
RESUME_PROMPT = (
    "You were interrupted: the worker that ran you stopped before you finished. Go on with the"
    " task from where you were; look at the worktree first, as what you last did may not have"
    " completed."
)
CLAUDE = "claude"
CODEX = "codex"
OPENCODE = "opencode"
CLAUDE_STATE = ".claude.json"
"""Claude Code's own state in its configuration folder (its first start's time, its user id, the
migrations it ran). A continuation carries it with the session: in a home without it the CLI
runs its first start again, writing this file five times before it reads the session (about
90 ms of its start in `--debug`'s timeline, 2026-12-07)."""
CLAUDE_STATE_BYTES = 1 << 20
"""A state file larger than this is not carried (the CLI's is a few hundred bytes)."""
OPENCODE_DATA = ".local/share/opencode/opencode.db"
"""Where opencode keeps its sessions under the job's home (`XDG_DATA_HOME` points there)."""
SESSION_EVENTS = {"system": "session_id", "thread.started": "thread_id"}
"""The event that says the session's id, by its type (Claude Code's, codex's), and its key."""
CODEX_RESUMABLE = frozenset(
    {
        "--json",
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-bypass-hook-trust",
        "--skip-git-repo-check",
    }
)
"""Options of `codex exec` that `codex exec resume` takes too (the preset's, and a few more)."""
CODEX_RESUMABLE_WITH_VALUE = frozenset({"-c", "--config", "--enable", "--disable", "-m", "--model"})


class SessionWatch:
    """Reads the session id from Claude Code's stream-json or codex's JSON lines as they stream,
    and counts the job's attempts that resumed a session and that started over (for the
    heartbeat)."""

    def __init__(self, known: str = "", resumed: int = 0, started_over: int = 0) -> None:
        self.session_id = known
        self.resumed = resumed
        self.started_over = started_over

    def feed(self, line: str) -> bool:
        """Take one output line; True when it told a session id not known before."""
        stripped = line.strip()
        if not stripped.startswith("{") or not any(
            f'"{key}"' in stripped for key in SESSION_EVENTS.values()
        ):
            return False
        try:
            event: Any = json.loads(stripped)
        except ValueError:
            return False
        if not isinstance(event, dict) or event.get("type") not in SESSION_EVENTS:
            return False
        found = event.get(SESSION_EVENTS[event["type"]])
        if not isinstance(found, str) or not SESSION_ID.fullmatch(found):
            return False
        if found == self.session_id:
            return False
        self.session_id = found
        return True


@dataclass(frozen=True)
class Earlier:
    """What the job's earlier attempts of `run_agent` left in their last heartbeat."""

    session_id: str = ""
    resumed: int = 0
    started_over: int = 0


def earlier_attempts(details: Sequence[Any]) -> Earlier:
    """The session and counts in the last heartbeat details of an earlier attempt, if any."""
    if not details:
        return Earlier()
    last = details[-1]
    beat = last if isinstance(last, AgentHeartbeat) else _heartbeat(last)
    if beat is None:
        return Earlier()
    return Earlier(beat.session_id, beat.resumed, beat.started_over)


def _heartbeat(value: Any) -> AgentHeartbeat | None:
    if not isinstance(value, dict):
        return None
    try:
        return AgentHeartbeat.model_validate(value)
    except ValueError:
        return None


def resume_argv(
    argv: Sequence[str], session_id: str, home: Path, prompt: str = RESUME_PROMPT
) -> list[str] | None:
    """`argv` made to resume the CLI's session `session_id` with `prompt` (a short one, by
    default) instead of the task; None when it cannot (neither Claude Code in print mode nor
    `codex exec --json`, no task after `--`, an option the resume does not take, no such
    session in the job's home `home`), and the attempt starts over."""
    if not SESSION_ID.fullmatch(session_id) or "--" not in argv:
        return None
    cut = argv.index("--")
    if cut != len(argv) - 2:
        return None
    if _is_claude(argv) and session_kept(home, session_id):
        return [*argv[:cut], "--resume", session_id, "--", prompt]
    if _is_resumable_codex(argv[:cut]) and codex_session_kept(home, session_id):
        return [argv[0], "exec", "resume", *argv[2:cut], session_id, "--", prompt]
    return None


def resumable_codex(argv: Sequence[str]) -> bool:
    """Whether `argv` runs `codex exec --json ... -- <task>` in a shape `resume_argv` resumes."""
    if "--" not in argv or argv.index("--") != len(argv) - 2:
        return False
    return _is_resumable_codex(argv[: argv.index("--")])


def continue_argv(argv: Sequence[str], home: Path, prompt: str) -> list[str] | None:
    """`argv` (`opencode run ... -- <task>`) made to continue the job's last opencode session
    with `prompt` (`opencode run --continue`); None when it cannot (not that shape, no opencode
    data in the job's home `home`). opencode's plain output names no session id: the job's home
    holds only its own sessions, so its last one is the agent's."""
    if "--" not in argv or argv.index("--") != len(argv) - 2 or len(argv) < 2:
        return None
    if argv[0].rsplit("/", 1)[-1] != OPENCODE or argv[1] != "run":
        return None
    if not (home / OPENCODE_DATA).is_file():
        return None
    cut = argv.index("--")
    return [argv[0], "run", "--continue", *argv[2:cut], "--", prompt]


def stream_resume_argv(argv: Sequence[str], session_id: str, home: Path) -> list[str] | None:
    """`argv` (Claude Code in print mode with streaming input, which takes its prompt on its
    standard input) made to resume the session `session_id`; None when it cannot (not that
    CLI, no such session in `home`), and the run starts over."""
    if not SESSION_ID.fullmatch(session_id) or not _is_claude(argv):
        return None
    if not session_kept(home, session_id):
        return None
    cut = argv.index("--") if "--" in argv else len(argv)
    return [*argv[:cut], "--resume", session_id, *argv[cut:]]


def deferral_resume_argv(argv: Sequence[str], session_id: str, home: Path) -> list[str] | None:
    """`argv` made to resume Claude Code's session `session_id` after a suspension: no prompt,
    so the CLI runs its hook again for the call it deferred and goes on; None when it cannot
    (not Claude Code in print mode with its task last, no such session in `home`), and the
    run starts over with the task."""
    if not SESSION_ID.fullmatch(session_id) or "--" not in argv:
        return None
    cut = argv.index("--")
    if cut != len(argv) - 2 or not _is_claude(argv) or not session_kept(home, session_id):
        return None
    return [*argv[:cut], "--resume", session_id]


def session_kept(home: Path, session_id: str) -> bool:
    """Whether Claude Code's conversation `session_id` is kept in the job's home `home`: a file
    of it that holds a message. A CLI stopped just after it started (at a spend limit its first
    answer reached, say) may have written only its own bookkeeping there (2.1.337 writes an
    `api-request-route` line first), and `--resume` of that fails ("No conversation found")
    where starting over works."""
    return any(_holds_a_message(path) for path in _claude_files(home, session_id))


def _holds_a_message(path: Path) -> bool:
    """Whether the Claude Code session file `path` has a line of the conversation in it."""
    return any(entry.get("type") in CONVERSATION_TYPES for entry in json_objects(path))


def json_objects(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of the JSON-lines file `path`, read as they are needed; a line that is
    none (one its writer was writing when it stopped, say) is passed over, and a file that
    cannot be read has none."""
    try:
        with path.open("rb") as lines:
            for line in lines:
                try:
                    entry = json.loads(line.decode("utf-8", errors="replace"))
                except ValueError:
                    continue
                if isinstance(entry, dict):
                    yield entry
    except OSError:
        return


def codex_session_kept(home: Path, session_id: str) -> bool:
    """Whether codex's thread `session_id` is kept in the job's home `home`."""
    return bool(_codex_files(home, session_id))


def session_files(home: Path, session_id: str) -> list[Path]:
    """The files in which Claude Code or codex keeps the session `session_id` in `home`."""
    if not SESSION_ID.fullmatch(session_id):
        return []
    return [*_claude_files(home, session_id), *_codex_files(home, session_id)]


def _claude_files(home: Path, session_id: str) -> list[Path]:
    projects = home / CLI_HOMES[CLAUDE].folder / "projects"
    return sorted(projects.glob(f"*/{session_id}.jsonl")) if projects.is_dir() else []


def _codex_files(home: Path, session_id: str) -> list[Path]:
    sessions = home / CLI_HOMES[CODEX].folder / "sessions"
    if not sessions.is_dir():
        return []
    return sorted(sessions.glob(f"*/*/*/rollout-*-{session_id}.jsonl"))


def _is_claude(argv: Sequence[str]) -> bool:
    """Whether `argv` runs Claude Code in print mode."""
    return bool(argv) and argv[0].rsplit("/", 1)[-1] == CLAUDE and "-p" in argv


def _is_resumable_codex(options: Sequence[str]) -> bool:
    """Whether `options` (a command before its `--`) are `codex exec --json` with options that
    `codex exec resume` takes too: another (`--cd`, `--sandbox`) would make the resume fail."""
    if len(options) < 2 or options[0].rsplit("/", 1)[-1] != CODEX or options[1] != "exec":
        return False
    rest = list(options[2:])
    while rest:
        option = rest.pop(0)
        if option in CODEX_RESUMABLE_WITH_VALUE and rest:
            rest.pop(0)
        elif option.split("=", 1)[0] not in CODEX_RESUMABLE | CODEX_RESUMABLE_WITH_VALUE:
            return False
    return "--json" in options


def adopt_session(earlier: Path, home: Path, session_id: str, worktree: Path) -> bool:
    """Copy the session `session_id` of the finished job whose folder is `earlier` into this
    job's home `home`, where its CLI finds it from the worktree `worktree` (a continuation);
    True when there was one. Claude Code keys a session by the working directory it ran in
    (`projects/<cwd, every other character than a letter or digit a '-'>/<id>.jsonl`, and a
    folder `<id>/` beside it), so its files go under this worktree's key, and its own state
    (`CLAUDE_STATE`) comes along; codex finds a thread by its id wherever its date put it. A
    file already there (an earlier attempt's copy, which its resumed session may have written
    to) is left as it is."""
    if not SESSION_ID.fullmatch(session_id):
        return False
    found = False
    for name in (SANDBOX_HOME, PRIVATE_HOME):
        before = earlier / name
        for path in _claude_files(before, session_id):
            key = home / CLI_HOMES[CLAUDE].folder / "projects" / CLAUDE_KEY.sub("-", str(worktree))
            _copy_once(path, key / path.name, home)
            if (path.parent / session_id).is_dir():
                _copy_once(path.parent / session_id, key / session_id, home)
            found = True
        state = before / CLI_HOMES[CLAUDE].folder / CLAUDE_STATE
        if found and _plain_file(state, CLAUDE_STATE_BYTES):
            _copy_once(state, home / CLI_HOMES[CLAUDE].folder / CLAUDE_STATE, home)
        codex = before / CLI_HOMES[CODEX].folder
        for path in _codex_files(before, session_id):
            _copy_once(path, home / CLI_HOMES[CODEX].folder / path.relative_to(codex), home)
            found = True
        if found:
            return True
    return False


def _plain_file(path: Path, limit: int) -> bool:
    """Whether `path` is a regular file of at most `limit` bytes in a folder of its own: neither
    it nor its folder a link (an unconfined agent's home may link its CLI's folder to the
    owner's, whose state holds a login)."""
    try:
        folder, found = path.parent.lstat(), path.lstat()
    except OSError:
        return False
    plain = stat.S_ISDIR(folder.st_mode) and stat.S_ISREG(found.st_mode)
    return plain and found.st_size <= limit


def _copy_once(source: Path, target: Path, home: Path) -> None:
    """Copy a file or folder to `target` in `home` unless something is there; links are copied
    as links. Nothing is copied where a folder on the way is a link or no folder: an earlier
    attempt's agent wrote this home and could have planted one to lead the copy out of it."""
    home.mkdir(parents=True, exist_ok=True)
    if folder_inside(home, target.parent) is None or target.exists() or target.is_symlink():
        return
    if source.is_dir():
        shutil.copytree(source, target, symlinks=True)
    else:
        shutil.copy2(source, target, follow_symlinks=False)


def forget_sessions(folder: Path) -> bool:
    """Remove the agent's homes in the job folder `folder`, and its CLI's sessions with them
    (a cancelled cut's, or a finished job's once kept its time: `SessionKeep`); True if there
    were any. Links in a home (the unconfined one links to the owner's paths) are removed,
    never followed."""
    homes = [folder / name for name in (SANDBOX_HOME, PRIVATE_HOME)]
    found = any(home.exists() for home in homes)
    for home in homes:
        shutil.rmtree(home, ignore_errors=True)
    return found
